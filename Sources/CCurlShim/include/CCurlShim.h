// CCurlShim: the few libcurl declarations Kringle's CurlTransport needs, loaded at run time.
//
// Nothing here includes <curl/curl.h> and nothing links -lcurl: the library is opened with
// dlopen the first time it is needed, so a package that uses Kringle builds on machines
// that have only the libcurl runtime (or none at all, in which case kcurl_load reports why).
//
// The option and info numbers below were copied from the public headers of curl 7.88.1
// (curl.h, multi.h), and are written as curl.h writes them, a type base plus a number. libcurl
// keeps these numbers stable across releases (they are ABI), so they hold for every later 7.x
// and 8.x runtime.
//
// Swift cannot call curl_easy_setopt, curl_easy_getinfo or curl_multi_setopt, which are
// variadic, so each argument type gets its own non-variadic wrapper.

#ifndef KRINGLE_CCURLSHIM_H
#define KRINGLE_CCURLSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An easy handle (curl's `CURL *`); one transfer at a time.
typedef struct kcurl_easy kcurl_easy;

/// A multi handle together with the descriptors it waits on (kcurl_readiness.c).
typedef struct kcurl_multi kcurl_multi;

/// A header list (curl's `struct curl_slist *`).
typedef struct kcurl_slist kcurl_slist;

/// The shape of curl's write, header and read callbacks.
typedef size_t (*kcurl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);

/// curl's progress callback (curl_xferinfo_callback); curl_off_t is a 64-bit signed integer.
typedef int (*kcurl_xferinfo_callback)(void *userdata, int64_t download_total, int64_t download_now,
                                       int64_t upload_total, int64_t upload_now);

/// curl's seek callback (curl_seek_callback), used to rewind a streamed request body.
typedef int (*kcurl_seek_callback)(void *userdata, int64_t offset, int origin);

/// The type bases of curl's option numbers (curl.h, CURLOPTTYPE_*): an option's number is its
/// base plus its index, and its base says which kcurl_easy_setopt_* wrapper sets it (long,
/// pointer, callback, off_t, blob). curl.h's other names are aliases of these:
/// STRINGPOINT, SLISTPOINT and CBPOINT of OBJECTPOINT, VALUES of LONG.
#define KCURLOPTTYPE_LONG 0
#define KCURLOPTTYPE_OBJECTPOINT 10000
#define KCURLOPTTYPE_FUNCTIONPOINT 20000
#define KCURLOPTTYPE_OFF_T 30000
#define KCURLOPTTYPE_BLOB 40000

/// The type bases of curl's information numbers (curl.h, CURLINFO_STRING and the others),
/// which say which kcurl_easy_getinfo_* wrapper reads it.
#define KCURLINFO_STRING 0x100000
#define KCURLINFO_LONG 0x200000
#define KCURLINFO_OFF_T 0x600000
#define KCURLINFO_SOCKET 0x500000

/// One option, written as curl.h writes it (CURLOPT(name, type, number)), so that the list
/// reads against curl's own.
#define KCURLOPT(name, type, number) name = type + number

/// Easy-handle options used by CurlTransport (curl.h, CURLOPT_*): type base + number.
typedef enum kcurl_option {
    KCURLOPT(KCURLOPT_WRITEDATA, KCURLOPTTYPE_OBJECTPOINT, 1),
    KCURLOPT(KCURLOPT_URL, KCURLOPTTYPE_OBJECTPOINT, 2),
    KCURLOPT(KCURLOPT_PROXY, KCURLOPTTYPE_OBJECTPOINT, 4),
    KCURLOPT(KCURLOPT_READDATA, KCURLOPTTYPE_OBJECTPOINT, 9),
    KCURLOPT(KCURLOPT_ERRORBUFFER, KCURLOPTTYPE_OBJECTPOINT, 10),
    KCURLOPT(KCURLOPT_LOW_SPEED_LIMIT, KCURLOPTTYPE_LONG, 19),
    KCURLOPT(KCURLOPT_LOW_SPEED_TIME, KCURLOPTTYPE_LONG, 20),
    KCURLOPT(KCURLOPT_WRITEFUNCTION, KCURLOPTTYPE_FUNCTIONPOINT, 11),
    KCURLOPT(KCURLOPT_READFUNCTION, KCURLOPTTYPE_FUNCTIONPOINT, 12),
    KCURLOPT(KCURLOPT_POSTFIELDS, KCURLOPTTYPE_OBJECTPOINT, 15),
    KCURLOPT(KCURLOPT_HTTPHEADER, KCURLOPTTYPE_OBJECTPOINT, 23),
    KCURLOPT(KCURLOPT_HEADERDATA, KCURLOPTTYPE_OBJECTPOINT, 29),
    KCURLOPT(KCURLOPT_CUSTOMREQUEST, KCURLOPTTYPE_OBJECTPOINT, 36),
    KCURLOPT(KCURLOPT_NOPROGRESS, KCURLOPTTYPE_LONG, 43),
    KCURLOPT(KCURLOPT_NOBODY, KCURLOPTTYPE_LONG, 44),
    KCURLOPT(KCURLOPT_UPLOAD, KCURLOPTTYPE_LONG, 46),
    KCURLOPT(KCURLOPT_POST, KCURLOPTTYPE_LONG, 47),
    KCURLOPT(KCURLOPT_FOLLOWLOCATION, KCURLOPTTYPE_LONG, 52),
    KCURLOPT(KCURLOPT_XFERINFODATA, KCURLOPTTYPE_OBJECTPOINT, 57),
    KCURLOPT(KCURLOPT_SSL_VERIFYPEER, KCURLOPTTYPE_LONG, 64),
    KCURLOPT(KCURLOPT_CAINFO, KCURLOPTTYPE_OBJECTPOINT, 65),
    KCURLOPT(KCURLOPT_HEADERFUNCTION, KCURLOPTTYPE_FUNCTIONPOINT, 79),
    KCURLOPT(KCURLOPT_HTTPGET, KCURLOPTTYPE_LONG, 80),
    KCURLOPT(KCURLOPT_SSL_VERIFYHOST, KCURLOPTTYPE_LONG, 81),
    KCURLOPT(KCURLOPT_HTTP_VERSION, KCURLOPTTYPE_LONG, 84),
    KCURLOPT(KCURLOPT_PIPEWAIT, KCURLOPTTYPE_LONG, 237),
    KCURLOPT(KCURLOPT_NOSIGNAL, KCURLOPTTYPE_LONG, 99),
    KCURLOPT(KCURLOPT_ACCEPT_ENCODING, KCURLOPTTYPE_OBJECTPOINT, 102),
    KCURLOPT(KCURLOPT_INFILESIZE_LARGE, KCURLOPTTYPE_OFF_T, 115),
    KCURLOPT(KCURLOPT_POSTFIELDSIZE_LARGE, KCURLOPTTYPE_OFF_T, 120),
    KCURLOPT(KCURLOPT_TCP_NODELAY, KCURLOPTTYPE_LONG, 121),
    KCURLOPT(KCURLOPT_TIMEOUT_MS, KCURLOPTTYPE_LONG, 155),
    KCURLOPT(KCURLOPT_CONNECTTIMEOUT_MS, KCURLOPTTYPE_LONG, 156),
    KCURLOPT(KCURLOPT_SEEKFUNCTION, KCURLOPTTYPE_FUNCTIONPOINT, 167),
    KCURLOPT(KCURLOPT_SEEKDATA, KCURLOPTTYPE_OBJECTPOINT, 168),
    KCURLOPT(KCURLOPT_NOPROXY, KCURLOPTTYPE_OBJECTPOINT, 177),
    KCURLOPT(KCURLOPT_TCP_KEEPALIVE, KCURLOPTTYPE_LONG, 213),
    KCURLOPT(KCURLOPT_XFERINFOFUNCTION, KCURLOPTTYPE_FUNCTIONPOINT, 219),
    KCURLOPT(KCURLOPT_PROXY_CAINFO, KCURLOPTTYPE_OBJECTPOINT, 246),
    KCURLOPT(KCURLOPT_PROXY_CAPATH, KCURLOPTTYPE_OBJECTPOINT, 247),
    KCURLOPT(KCURLOPT_PROXY_SSL_VERIFYPEER, KCURLOPTTYPE_LONG, 248),
    KCURLOPT(KCURLOPT_PROXY_SSL_VERIFYHOST, KCURLOPTTYPE_LONG, 249),
    // Proxy credentials, handed to curl apart from the proxy URL (so that no URL curl reports
    // carries them), and the lowest TLS version an HTTPS proxy may speak.
    KCURLOPT(KCURLOPT_PROXYUSERNAME, KCURLOPTTYPE_OBJECTPOINT, 175),
    KCURLOPT(KCURLOPT_PROXYPASSWORD, KCURLOPTTYPE_OBJECTPOINT, 176),
    KCURLOPT(KCURLOPT_PROXY_SSLVERSION, KCURLOPTTYPE_LONG, 250),
    KCURLOPT(KCURLOPT_PROTOCOLS, KCURLOPTTYPE_LONG, 181),
    KCURLOPT(KCURLOPT_PROTOCOLS_STR, KCURLOPTTYPE_OBJECTPOINT, 318),
    // TLS: client certificates, versions, pinning, in-memory PEM (the _BLOB options are curl 7.71+,
    // CAINFO_BLOB 7.77+; an older library answers CURLE_UNKNOWN_OPTION).
    KCURLOPT(KCURLOPT_SSLCERT, KCURLOPTTYPE_OBJECTPOINT, 25),
    KCURLOPT(KCURLOPT_KEYPASSWD, KCURLOPTTYPE_OBJECTPOINT, 26),
    KCURLOPT(KCURLOPT_SSLVERSION, KCURLOPTTYPE_LONG, 32),
    KCURLOPT(KCURLOPT_SSLCERTTYPE, KCURLOPTTYPE_OBJECTPOINT, 86),
    KCURLOPT(KCURLOPT_SSLKEY, KCURLOPTTYPE_OBJECTPOINT, 87),
    KCURLOPT(KCURLOPT_SSLKEYTYPE, KCURLOPTTYPE_OBJECTPOINT, 88),
    KCURLOPT(KCURLOPT_PINNEDPUBLICKEY, KCURLOPTTYPE_OBJECTPOINT, 230),
    KCURLOPT(KCURLOPT_SSLCERT_BLOB, KCURLOPTTYPE_BLOB, 291),
    KCURLOPT(KCURLOPT_SSLKEY_BLOB, KCURLOPTTYPE_BLOB, 292),
    KCURLOPT(KCURLOPT_CAINFO_BLOB, KCURLOPTTYPE_BLOB, 309),
    KCURLOPT(KCURLOPT_PROXY_CAINFO_BLOB, KCURLOPTTYPE_BLOB, 310),
    // Certificate rotation: the CA directory (cleared when the transport names its own CAs),
    // TLS session resumption, and how long a CA store is cached (curl 7.87+).
    KCURLOPT(KCURLOPT_CAPATH, KCURLOPTTYPE_OBJECTPOINT, 97),
    KCURLOPT(KCURLOPT_SSL_SESSIONID_CACHE, KCURLOPTTYPE_LONG, 150),
    KCURLOPT(KCURLOPT_CA_CACHE_TIMEOUT, KCURLOPTTYPE_LONG, 321),
    /* Connections: DNS overrides, address family, the pool's ages. */
    KCURLOPT(KCURLOPT_RESOLVE, KCURLOPTTYPE_OBJECTPOINT, 203),
    KCURLOPT(KCURLOPT_IPRESOLVE, KCURLOPTTYPE_LONG, 113),
    KCURLOPT(KCURLOPT_MAXAGE_CONN, KCURLOPTTYPE_LONG, 288),
    KCURLOPT(KCURLOPT_MAXLIFETIME_CONN, KCURLOPTTYPE_LONG, 314),
    KCURLOPT(KCURLOPT_FRESH_CONNECT, KCURLOPTTYPE_LONG, 74),
    KCURLOPT(KCURLOPT_FORBID_REUSE, KCURLOPTTYPE_LONG, 75),
    // Unix domain sockets (issue 32): curl 7.40+, when built with UnixSockets.
    KCURLOPT(KCURLOPT_UNIX_SOCKET_PATH, KCURLOPTTYPE_OBJECTPOINT, 231),
    // WebSockets: connect (TCP, proxy tunnel, TLS) and stop there, leaving the connection to
    // curl_easy_send and curl_easy_recv; the share holds that connection (kcurl_sockets.c).
    KCURLOPT(KCURLOPT_CONNECT_ONLY, KCURLOPTTYPE_LONG, 141),
    KCURLOPT(KCURLOPT_HTTPPROXYTUNNEL, KCURLOPTTYPE_LONG, 61),
    KCURLOPT(KCURLOPT_SHARE, KCURLOPTTYPE_OBJECTPOINT, 100),
} kcurl_option;

#undef KCURLOPT

/// Multi-handle options (multi.h, CURLMOPT_*).
typedef enum kcurl_multi_option {
    KCURLMOPT_MAXCONNECTS = 6,
} kcurl_multi_option;

/// Transfer information (curl.h, CURLINFO_*): type base + number.
typedef enum kcurl_info {
    KCURLINFO_EFFECTIVE_URL = KCURLINFO_STRING + 1,
    KCURLINFO_RESPONSE_CODE = KCURLINFO_LONG + 2,
    KCURLINFO_REQUEST_SIZE = KCURLINFO_LONG + 12,
    KCURLINFO_SIZE_UPLOAD_T = KCURLINFO_OFF_T + 7,
    KCURLINFO_SIZE_DOWNLOAD_T = KCURLINFO_OFF_T + 8,
    KCURLINFO_CONTENT_LENGTH_DOWNLOAD_T = KCURLINFO_OFF_T + 15,
    KCURLINFO_HEADER_SIZE = KCURLINFO_LONG + 11,
    KCURLINFO_HTTP_CONNECTCODE = KCURLINFO_LONG + 22,
    KCURLINFO_OS_ERRNO = KCURLINFO_LONG + 25,
    KCURLINFO_NUM_CONNECTS = KCURLINFO_LONG + 26,
    KCURLINFO_PRIMARY_IP = KCURLINFO_STRING + 32,
    KCURLINFO_PRIMARY_PORT = KCURLINFO_LONG + 40,
    KCURLINFO_HTTP_VERSION = KCURLINFO_LONG + 46,
    KCURLINFO_TOTAL_TIME_T = KCURLINFO_OFF_T + 50,
    KCURLINFO_NAMELOOKUP_TIME_T = KCURLINFO_OFF_T + 51,
    KCURLINFO_CONNECT_TIME_T = KCURLINFO_OFF_T + 52,
    KCURLINFO_PRETRANSFER_TIME_T = KCURLINFO_OFF_T + 53,
    KCURLINFO_STARTTRANSFER_TIME_T = KCURLINFO_OFF_T + 54,
    KCURLINFO_APPCONNECT_TIME_T = KCURLINFO_OFF_T + 56,
    KCURLINFO_ACTIVESOCKET = KCURLINFO_SOCKET + 44,
} kcurl_info;

/// Result codes CurlTransport looks at (curl.h, CURLcode).
enum {
    KCURLE_OK = 0,
    KCURLE_UNSUPPORTED_PROTOCOL = 1,
    KCURLE_FAILED_INIT = 2,
    KCURLE_NOT_BUILT_IN = 4,
    KCURLE_WEIRD_SERVER_REPLY = 8,
    KCURLE_COULDNT_CONNECT = 7,
    KCURLE_OPERATION_TIMEDOUT = 28,
    KCURLE_GOT_NOTHING = 52,
    KCURLE_SSL_CONNECT_ERROR = 35,
    KCURLE_UNKNOWN_OPTION = 48,
    KCURLE_SEND_ERROR = 55,
    KCURLE_RECV_ERROR = 56,
    KCURLE_SSL_CERTPROBLEM = 58,
    KCURLE_SSL_CIPHER = 59,
    KCURLE_PEER_FAILED_VERIFICATION = 60,
    KCURLE_BAD_CONTENT_ENCODING = 61,
    KCURLE_SSL_CACERT_BADFILE = 77,
    KCURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
};

/// What read, write and seek callbacks return besides a byte count (curl.h).
enum {
    KCURL_READFUNC_ABORT = 0x10000000,
    KCURL_WRITEFUNC_PAUSE = 0x10000001,
    KCURL_SEEKFUNC_OK = 0,
    KCURL_SEEKFUNC_FAIL = 1,
    KCURL_SEEKFUNC_CANTSEEK = 2,
};

/// Values for KCURLOPT_HTTP_VERSION (curl.h, CURL_HTTP_VERSION_*).
enum {
    KCURL_HTTP_VERSION_NONE = 0,
    KCURL_HTTP_VERSION_1_1 = 2,
    KCURL_HTTP_VERSION_2TLS = 4,
    KCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = 5,
};

/// Values for KCURLOPT_IPRESOLVE (curl.h, CURL_IPRESOLVE_*).
enum {
    KCURL_IPRESOLVE_WHATEVER = 0,
    KCURL_IPRESOLVE_V4 = 1,
    KCURL_IPRESOLVE_V6 = 2,
};

/// Values for KCURLOPT_SSLVERSION (curl.h, CURL_SSLVERSION_*): the lowest version to accept;
/// the highest stays libcurl's default.
enum {
    KCURL_SSLVERSION_TLSv1_2 = 6,
    KCURL_SSLVERSION_TLSv1_3 = 7,
};

/// Bits for KCURLOPT_PROTOCOLS, the pre-7.85 form of KCURLOPT_PROTOCOLS_STR (CURLPROTO_*).
enum {
    KCURLPROTO_HTTP = 1,
    KCURLPROTO_HTTPS = 2,
};

/// The size curl requires of an error buffer (curl.h, CURL_ERROR_SIZE).
enum { KCURL_ERROR_SIZE = 256 };

// MARK: - Loading

/// Opens libcurl and calls curl_global_init, once per process; later calls return the first
/// answer. Returns 1 when libcurl is usable, 0 otherwise. Safe from any thread.
int kcurl_load(void);

/// Why kcurl_load failed: every library name tried and what went wrong with it. Empty when
/// libcurl loaded.
const char *kcurl_load_error(void);

/// curl_version() of the loaded library, or "" when none is loaded.
const char *kcurl_version(void);

/// Tries to dlopen each of `names` in turn, for diagnostics and tests; does not touch the
/// library kcurl_load opened. Returns the index of the first name that opened (and closes
/// it again) or -1, writing what was tried into `message` (NUL-terminated, truncated).
int kcurl_probe(const char *const *names, int count, char *message, size_t capacity);

// MARK: - Easy handles (call only after kcurl_load returned 1)

kcurl_easy *kcurl_easy_init(void);
void kcurl_easy_cleanup(kcurl_easy *easy);
void kcurl_easy_reset(kcurl_easy *easy);
int kcurl_easy_setopt_long(kcurl_easy *easy, kcurl_option option, long value);
int kcurl_easy_setopt_pointer(kcurl_easy *easy, kcurl_option option, const void *value);
int kcurl_easy_setopt_off_t(kcurl_easy *easy, kcurl_option option, int64_t value);
int kcurl_easy_setopt_callback(kcurl_easy *easy, kcurl_option option, kcurl_data_callback value);
int kcurl_easy_getinfo_long(kcurl_easy *easy, kcurl_info info, long *value);
int kcurl_easy_setopt_xferinfo(kcurl_easy *easy, kcurl_option option, kcurl_xferinfo_callback value);
int kcurl_easy_setopt_seek(kcurl_easy *easy, kcurl_option option, kcurl_seek_callback value);
/// Sets a blob option (CURLOPTTYPE_BLOB) to `length` bytes at `data`, which curl copies
/// (CURL_BLOB_COPY), so the bytes need not outlive the call.
int kcurl_easy_setopt_blob(kcurl_easy *easy, kcurl_option option, const void *data, size_t length);
int kcurl_easy_getinfo_string(kcurl_easy *easy, kcurl_info info, const char **value);
int kcurl_easy_getinfo_off_t(kcurl_easy *easy, kcurl_info info, int64_t *value);
const char *kcurl_easy_strerror(int code);
/// curl_easy_pause(easy, CURLPAUSE_CONT): resumes a transfer a write callback paused. Call it
/// on the driving thread only (it may call the write callback at once).
int kcurl_easy_unpause(kcurl_easy *easy);

/// curl_slist_append; returns NULL (and leaves `list` intact) when memory runs out.
kcurl_slist *kcurl_slist_append(kcurl_slist *list, const char *line);
void kcurl_slist_free_all(kcurl_slist *list);

// MARK: - Multi handles (call only after kcurl_load returned 1)

/// Creates a multi handle that waits for its sockets with epoll (Linux) or, `portable` (every
/// other platform, and tests), poll().
kcurl_multi *kcurl_multi_create(int portable);
void kcurl_multi_destroy(kcurl_multi *multi);
/// 1 when this multi handle waits with poll().
int kcurl_multi_is_portable(const kcurl_multi *multi);
int kcurl_multi_setopt_long(kcurl_multi *multi, kcurl_multi_option option, long value);
int kcurl_multi_add(kcurl_multi *multi, kcurl_easy *easy);
int kcurl_multi_remove(kcurl_multi *multi, kcurl_easy *easy);

/// curl's socket for kcurl_multi_socket_action when it is no socket but curl's timer
/// (CURL_SOCKET_TIMEOUT).
enum { KCURL_SOCKET_TIMEOUT = -1 };
/// What a watched descriptor is watched for, or what happened to it; the values of curl's
/// CURL_CSELECT_IN, _OUT and _ERR, so that they go to curl_multi_socket_action as they are.
enum { KCURL_WATCH_IN = 1, KCURL_WATCH_OUT = 2, KCURL_WATCH_ERROR = 4 };
/// A tag with this bit set is one of curl's sockets, whose number is the tag's low 32 bits;
/// every other tag is the application's (kcurl_multi_watch).
static const uint64_t KCURL_TAG_CURL_SOCKET = (uint64_t)1 << 63;
/// The tag kcurl_multi_wait reports a wake-up with.
static const uint64_t KCURL_TAG_WAKE_UP = UINT64_MAX;

/// A descriptor that is ready: its tag, and what happened (KCURL_WATCH_*).
typedef struct kcurl_event {
    uint64_t tag;
    int events;
} kcurl_event;

/// Lets curl move the transfers on `socket` (`events` of KCURL_WATCH_*), or the ones whose
/// time came (KCURL_SOCKET_TIMEOUT, `events` 0); returns a CURLMcode.
int kcurl_multi_socket_action(kcurl_multi *multi, int socket, int events);
/// Lets curl move every transfer (curl_multi_socket_all, or the timer's when it is missing).
int kcurl_multi_socket_all(kcurl_multi *multi);
/// The monotonic clock, in nanoseconds.
int64_t kcurl_now(void);
/// Milliseconds until curl's timer is due (0: now), or -1 when it has none.
int kcurl_multi_timeout(const kcurl_multi *multi);
/// Waits up to `timeout_ms` (-1: no limit) for curl's sockets, the application's watched
/// descriptors or kcurl_multi_wakeup; fills `events` with the ready descriptors (and a
/// wake-up, as KCURL_TAG_WAKE_UP) and returns how many, or -1 with errno set.
int kcurl_multi_wait(kcurl_multi *multi, int timeout_ms, kcurl_event *events, int capacity);
/// Interrupts kcurl_multi_wait; any thread may call it.
int kcurl_multi_wakeup(kcurl_multi *multi);
/// A thread other than the driving one starts waiting for the sockets in its place (epoll
/// only; -1 elsewhere): kcurl_multi_wait stops reporting them, without waking, until
/// kcurl_multi_assist_end. Only one thread may assist at a time.
int kcurl_multi_assist_begin(kcurl_multi *multi);
/// The assistant's wait, as kcurl_multi_wait's, interrupted by kcurl_multi_wake_assistant.
int kcurl_multi_assist_wait(kcurl_multi *multi, int timeout_ms, kcurl_event *events, int capacity);
/// Gives the sockets back to kcurl_multi_wait, which reports at once what is ready.
int kcurl_multi_assist_end(kcurl_multi *multi);
/// Interrupts the assistant's current or next wait; any thread may call it.
int kcurl_multi_wake_assistant(kcurl_multi *multi);
/// Watches a descriptor of the application's own (a WebSocket's socket) for `events`,
/// reported with `tag` (below KCURL_TAG_CURL_SOCKET): edge-triggered with epoll, once per
/// change; level-triggered with poll(), so call it again as the events wanted change.
/// 0, or -1 with errno set.
int kcurl_multi_watch(kcurl_multi *multi, int socket, int events, uint64_t tag);
/// Stops watching a descriptor of the application's own; call it before closing it.
void kcurl_multi_unwatch(kcurl_multi *multi, int socket);
/// Fetches the next finished transfer: returns 1 and fills `easy` and `result`, or 0 when
/// there is none.
int kcurl_multi_next_done(kcurl_multi *multi, kcurl_easy **easy, int *result);
const char *kcurl_multi_strerror(int code);

// MARK: - Connections of the application's own (WebSockets; kcurl_sockets.c)

/// A connection cache of its own (a share handle sharing CURL_LOCK_DATA_CONNECT), for one
/// CONNECT_ONLY handle: its connection then lives apart from the multi handle's cache, where
/// curl would prune it as idle, and curl_easy_send finds it without searching a full cache.
typedef struct kcurl_share kcurl_share;

/// 1 when libcurl has curl_easy_send, curl_easy_recv and the share functions.
int kcurl_has_connect_only(void);
/// A new share handle that shares connections, or NULL.
kcurl_share *kcurl_connection_share_create(void);
/// Frees a share; call after the easy handles using it were cleaned up.
void kcurl_connection_share_destroy(kcurl_share *share);
/// Hands `share` to `easy` (CURLOPT_SHARE); NULL takes it away.
int kcurl_easy_setopt_share(kcurl_easy *easy, kcurl_share *share);
/// curl_easy_send: 0 with `sent` filled, KCURLE_AGAIN when the socket is full, or an error.
int kcurl_easy_send(kcurl_easy *easy, const void *buffer, size_t length, size_t *sent);
/// curl_easy_recv: 0 with `received` filled (0 bytes: the peer closed), KCURLE_AGAIN when
/// nothing is waiting, or an error.
int kcurl_easy_recv(kcurl_easy *easy, void *buffer, size_t length, size_t *received);
/// Whether the loaded libcurl speaks protocol `name` ("ws", "https"…): 1 or 0, or -1 when it
/// cannot tell (curl_version_info missing). Call after kcurl_load returned 1.
int kcurl_supports_protocol(const char *name);
/// The content codings the loaded libcurl decodes, as it lists them in the Accept-Encoding
/// field it sends for CURLOPT_ACCEPT_ENCODING "" ("deflate, gzip, br, zstd"), or NULL when it
/// cannot tell (curl_version_info missing). Call after kcurl_load returned 1.
const char *kcurl_content_encodings(void);
/// The connected socket of a CONNECT_ONLY handle (CURLINFO_ACTIVESOCKET), or -1.
int kcurl_easy_active_socket(kcurl_easy *easy);

/// curl.h: CURLE_AGAIN, the socket is not ready.
enum { KCURLE_AGAIN = 81 };

// MARK: - Threads

/// Gives the calling thread a system-level name (at most 15 bytes on Linux).
void kcurl_name_current_thread(const char *name);

#ifdef __cplusplus
}
#endif

// zlib, loaded the same way, for compressed request bodies: its own header, as this
// one is the module's umbrella.
#include "kzlib.h"

#endif
