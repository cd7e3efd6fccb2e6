// The few zlib entry points Kringle needs to compress request bodies, loaded at run time.
//
// Like libcurl (CCurlShim.h), zlib is opened with dlopen the first time it is needed, so
// Kringle builds without zlib's headers and links no -lz; a process without zlib gets an
// error from kzlib_load, not a crash. Request bodies are compressed (deflate); WebSocket
// messages are compressed and inflated (RFC 7692, raw deflate).

#ifndef KRINGLE_KZLIB_H
#define KRINGLE_KZLIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A deflate stream: zlib's z_stream, owned by the shim.
typedef struct kzlib_deflater kzlib_deflater;

/// An inflate stream: zlib's z_stream, owned by the shim.
typedef struct kzlib_inflater kzlib_inflater;

/// How kzlib_deflate ends its output once all input is offered: not at all, by ending the
/// stream (Z_FINISH), or on a byte boundary with an empty stored block (Z_SYNC_FLUSH).
enum { KZLIB_FLUSH_NONE = 0, KZLIB_FLUSH_FINISH = 1, KZLIB_FLUSH_SYNC = 2 };

/// Result codes (zlib.h): Z_OK, Z_STREAM_END, Z_STREAM_ERROR, Z_MEM_ERROR, Z_BUF_ERROR,
/// Z_VERSION_ERROR.
enum {
    KZ_OK = 0,
    KZ_STREAM_END = 1,
    KZ_STREAM_ERROR = -2,
    KZ_DATA_ERROR = -3,
    KZ_MEM_ERROR = -4,
    KZ_BUF_ERROR = -5,
    KZ_VERSION_ERROR = -6,
};

/// Opens zlib and resolves the deflate and inflate functions and zlibVersion, once per
/// process; later calls return the first answer. Returns 1 when zlib is usable, 0
/// otherwise. Safe from any thread.
int kzlib_load(void);

/// Why kzlib_load failed: every library name tried and what went wrong with it. Empty when
/// zlib loaded.
const char *kzlib_load_error(void);

/// zlibVersion() of the loaded library, or "" when none is loaded.
const char *kzlib_version(void);

/// Where the loaded library came from (the name dlopen accepted), or "".
const char *kzlib_library_name(void);

/// Starts a deflate stream (deflateInit2 with Z_DEFLATED, memLevel 8, the default
/// strategy). `window_bits` 15 writes the zlib format (RFC 1950), 31 the gzip format (RFC
/// 1952). Returns NULL when zlib is not loaded or refuses, with zlib's code in `*code`.
kzlib_deflater *kzlib_deflater_create(int level, int window_bits, int *code);

/// Compresses: consumes up to `input_count` bytes at `input` and writes up to
/// `output_capacity` bytes at `output`, reporting how many of each in `*consumed` and
/// `*produced`. With `flush_mode` KZLIB_FLUSH_FINISH, flushes and ends the stream (Z_FINISH):
/// call again with more output space until it returns KZ_STREAM_END; with KZLIB_FLUSH_SYNC,
/// flushes to a byte boundary (call again while the output space was filled). Returns zlib's
/// code: KZ_OK, KZ_STREAM_END, KZ_BUF_ERROR (no progress possible, not fatal) or an error.
int kzlib_deflate(kzlib_deflater *deflater, const uint8_t *input, size_t input_count, size_t *consumed,
                  uint8_t *output, size_t output_capacity, size_t *produced, int flush_mode);

/// Starts the stream afresh with its settings (deflateReset): no history of earlier input.
int kzlib_deflater_reset(kzlib_deflater *deflater);

/// Starts an inflate stream (inflateInit2); `window_bits` -15 reads raw deflate data. Returns
/// NULL when zlib is not loaded or refuses, with zlib's code in `*code`.
kzlib_inflater *kzlib_inflater_create(int window_bits, int *code);

/// Inflates up to `input_count` bytes at `input` into up to `output_capacity` bytes at
/// `output` (Z_SYNC_FLUSH), reporting how many of each in `*consumed` and `*produced`; call
/// again while input remains or the output space was filled. Returns zlib's code: KZ_OK,
/// KZ_STREAM_END, KZ_BUF_ERROR (no progress possible, not fatal), KZ_DATA_ERROR or another.
int kzlib_inflate(kzlib_inflater *inflater, const uint8_t *input, size_t input_count, size_t *consumed,
                  uint8_t *output, size_t output_capacity, size_t *produced);

/// Starts the stream afresh (inflateReset): no history of earlier input.
int kzlib_inflater_reset(kzlib_inflater *inflater);

/// zlib's message for the stream's last error, or "".
const char *kzlib_inflater_message(const kzlib_inflater *inflater);

/// Ends the stream (inflateEnd) and frees it; NULL is ignored.
void kzlib_inflater_destroy(kzlib_inflater *inflater);

/// zlib's message for the stream's last error, or "".
const char *kzlib_deflater_message(const kzlib_deflater *deflater);

/// Ends the stream (deflateEnd) and frees it; NULL is ignored.
void kzlib_deflater_destroy(kzlib_deflater *deflater);

#ifdef __cplusplus
}
#endif

#endif
