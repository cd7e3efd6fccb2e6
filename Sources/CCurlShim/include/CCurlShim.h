// CCurlShim: the few libcurl declarations Kringle's CurlTransport needs, loaded at run time.
//
// Nothing here includes <curl/curl.h> and nothing links -lcurl: the library is opened with
// dlopen the first time it is needed, so a package that uses Kringle builds on machines
// that have only the libcurl runtime (or none at all, in which case kcurl_load reports why).
//
// The option and info numbers below were copied from the public headers of curl 7.88.1
// (curl.h, multi.h). libcurl keeps these numbers stable across releases (they are ABI), so
// they hold for every later 7.x and 8.x runtime.
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

/// A multi handle together with the wake-up pipe used when libcurl lacks curl_multi_wakeup.
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

/// Easy-handle options used by CurlTransport (curl.h, CURLOPT_*): type base + number.
typedef enum kcurl_option {
    KCURLOPT_WRITEDATA = 10001,
    KCURLOPT_URL = 10002,
    KCURLOPT_PROXY = 10004,
    KCURLOPT_READDATA = 10009,
    KCURLOPT_ERRORBUFFER = 10010,
    KCURLOPT_LOW_SPEED_LIMIT = 19,
    KCURLOPT_LOW_SPEED_TIME = 20,
    KCURLOPT_WRITEFUNCTION = 20011,
    KCURLOPT_READFUNCTION = 20012,
    KCURLOPT_POSTFIELDS = 10015,
    KCURLOPT_HTTPHEADER = 10023,
    KCURLOPT_HEADERDATA = 10029,
    KCURLOPT_CUSTOMREQUEST = 10036,
    KCURLOPT_NOPROGRESS = 43,
    KCURLOPT_NOBODY = 44,
    KCURLOPT_UPLOAD = 46,
    KCURLOPT_POST = 47,
    KCURLOPT_FOLLOWLOCATION = 52,
    KCURLOPT_XFERINFODATA = 10057,
    KCURLOPT_SSL_VERIFYPEER = 64,
    KCURLOPT_CAINFO = 10065,
    KCURLOPT_HEADERFUNCTION = 20079,
    KCURLOPT_HTTPGET = 80,
    KCURLOPT_SSL_VERIFYHOST = 81,
    KCURLOPT_HTTP_VERSION = 84,
    KCURLOPT_PIPEWAIT = 237,
    KCURLOPT_NOSIGNAL = 99,
    KCURLOPT_ACCEPT_ENCODING = 10102,
    KCURLOPT_INFILESIZE_LARGE = 30115,
    KCURLOPT_POSTFIELDSIZE_LARGE = 30120,
    KCURLOPT_TCP_NODELAY = 121,
    KCURLOPT_TIMEOUT_MS = 155,
    KCURLOPT_CONNECTTIMEOUT_MS = 156,
    KCURLOPT_SEEKFUNCTION = 20167,
    KCURLOPT_SEEKDATA = 10168,
    KCURLOPT_NOPROXY = 10177,
    KCURLOPT_TCP_KEEPALIVE = 213,
    KCURLOPT_XFERINFOFUNCTION = 20219,
    KCURLOPT_PROXY_CAINFO = 10246,
    KCURLOPT_PROXY_CAPATH = 10247,
    KCURLOPT_PROXY_SSL_VERIFYPEER = 248,
    KCURLOPT_PROXY_SSL_VERIFYHOST = 249,
    // Proxy credentials, handed to curl apart from the proxy URL (so that no URL curl reports
    // carries them), and the lowest TLS version an HTTPS proxy may speak.
    KCURLOPT_PROXYUSERNAME = 10175,
    KCURLOPT_PROXYPASSWORD = 10176,
    KCURLOPT_PROXY_SSLVERSION = 250,
    KCURLOPT_PROTOCOLS = 181,
    KCURLOPT_PROTOCOLS_STR = 10318,
    // TLS: client certificates, versions, pinning, in-memory PEM (the _BLOB options are curl 7.71+,
    // CAINFO_BLOB 7.77+; an older library answers CURLE_UNKNOWN_OPTION).
    KCURLOPT_SSLCERT = 10025,
    KCURLOPT_KEYPASSWD = 10026,
    KCURLOPT_SSLVERSION = 32,
    KCURLOPT_SSLCERTTYPE = 10086,
    KCURLOPT_SSLKEY = 10087,
    KCURLOPT_SSLKEYTYPE = 10088,
    KCURLOPT_PINNEDPUBLICKEY = 10230,
    KCURLOPT_SSLCERT_BLOB = 40291,
    KCURLOPT_SSLKEY_BLOB = 40292,
    KCURLOPT_CAINFO_BLOB = 40309,
    KCURLOPT_PROXY_CAINFO_BLOB = 40310,
    // Certificate rotation: the CA directory (cleared when the transport names its own CAs),
    // TLS session resumption, and how long a CA store is cached (curl 7.87+).
    KCURLOPT_CAPATH = 10097,
    KCURLOPT_SSL_SESSIONID_CACHE = 150,
    KCURLOPT_CA_CACHE_TIMEOUT = 321,
    /* Connections: DNS overrides, address family, the pool's ages. */
    KCURLOPT_RESOLVE = 10203,
    KCURLOPT_IPRESOLVE = 113,
    KCURLOPT_MAXAGE_CONN = 288,
    KCURLOPT_MAXLIFETIME_CONN = 314,
    KCURLOPT_FRESH_CONNECT = 74,
    KCURLOPT_FORBID_REUSE = 75,
    // Unix domain sockets (issue 32): curl 7.40+, when built with UnixSockets.
    KCURLOPT_UNIX_SOCKET_PATH = 10231,
} kcurl_option;

/// Multi-handle options (multi.h, CURLMOPT_*).
typedef enum kcurl_multi_option {
    KCURLMOPT_MAXCONNECTS = 6,
} kcurl_multi_option;

/// Transfer information (curl.h, CURLINFO_*): type base + number.
typedef enum kcurl_info {
    KCURLINFO_EFFECTIVE_URL = 0x100001,
    KCURLINFO_RESPONSE_CODE = 0x200002,
    KCURLINFO_REQUEST_SIZE = 0x20000C,
    KCURLINFO_SIZE_UPLOAD_T = 0x600007,
    KCURLINFO_SIZE_DOWNLOAD_T = 0x600008,
    KCURLINFO_CONTENT_LENGTH_DOWNLOAD_T = 0x60000F,
    KCURLINFO_HEADER_SIZE = 0x20000B,
    KCURLINFO_HTTP_CONNECTCODE = 0x200016,
    KCURLINFO_OS_ERRNO = 0x200019,
    KCURLINFO_NUM_CONNECTS = 0x20001A,
    KCURLINFO_PRIMARY_IP = 0x100020,
    KCURLINFO_PRIMARY_PORT = 0x200028,
    KCURLINFO_HTTP_VERSION = 0x20002E,
    KCURLINFO_TOTAL_TIME_T = 0x600032,
    KCURLINFO_NAMELOOKUP_TIME_T = 0x600033,
    KCURLINFO_CONNECT_TIME_T = 0x600034,
    KCURLINFO_PRETRANSFER_TIME_T = 0x600035,
    KCURLINFO_STARTTRANSFER_TIME_T = 0x600036,
    KCURLINFO_APPCONNECT_TIME_T = 0x600038,
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

/// Creates a multi handle. Waiting uses curl_multi_poll and curl_multi_wakeup when the
/// library has them (curl 7.68+), otherwise curl_multi_wait plus a self-pipe;
/// `force_wait_fallback` picks the latter even when both exist (for tests).
kcurl_multi *kcurl_multi_create(int force_wait_fallback);
void kcurl_multi_destroy(kcurl_multi *multi);
/// 1 when this multi handle waits with curl_multi_wait and a self-pipe.
int kcurl_multi_uses_wait_fallback(const kcurl_multi *multi);
int kcurl_multi_setopt_long(kcurl_multi *multi, kcurl_multi_option option, long value);
int kcurl_multi_add(kcurl_multi *multi, kcurl_easy *easy);
int kcurl_multi_remove(kcurl_multi *multi, kcurl_easy *easy);
int kcurl_multi_perform(kcurl_multi *multi, int *running);
/// Waits up to `timeout_ms` for activity on curl's sockets or for kcurl_multi_wakeup.
int kcurl_multi_poll(kcurl_multi *multi, int timeout_ms);
/// Interrupts kcurl_multi_poll; the only function here that may be called from any thread.
int kcurl_multi_wakeup(kcurl_multi *multi);
/// Fetches the next finished transfer: returns 1 and fills `easy` and `result`, or 0 when
/// there is none.
int kcurl_multi_next_done(kcurl_multi *multi, kcurl_easy **easy, int *result);
const char *kcurl_multi_strerror(int code);

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
