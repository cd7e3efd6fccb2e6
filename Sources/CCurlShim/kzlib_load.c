// Opens zlib with dlopen once per process and compresses through it.
//
// No zlib header is included: the z_stream layout below is written out from zlib.h's
// documented `struct z_stream_s` (zlib 1.2 and 1.3, "The application must update next_in
// and avail_in when avail_in has dropped to zero..."), whose layout is zlib's ABI. On the
// LP64 platforms Kringle runs on, uInt is 32 bits and uLong 64 bits. deflateInit2_ is given
// sizeof(struct kz_stream) and a "1.x" version, which zlib checks against its own (it
// answers Z_VERSION_ERROR when either disagrees), so a layout mismatch fails cleanly.
//
// As for libcurl (kcurl_load.c), the state below is written once inside pthread_once and
// only read afterwards, the library is never closed, and the candidates are tried by
// kdl_open_first (kdl_open.c), which both loaders share.

#include "kdl_open.h"
#include "kzlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// zlib.h: `struct z_stream_s`, field for field (Bytef is unsigned char, uInt unsigned int,
/// uLong unsigned long, voidpf void *).
struct kz_stream {
    const unsigned char *next_in; // next input byte
    unsigned int avail_in;        // number of bytes available at next_in
    unsigned long total_in;       // total number of input bytes read so far
    unsigned char *next_out;      // next output byte will go here
    unsigned int avail_out;       // remaining free space at next_out
    unsigned long total_out;      // total number of bytes output so far
    const char *msg;              // last error message, NULL if no error
    void *state;                  // not visible by applications
    void *(*zalloc)(void *opaque, unsigned int items, unsigned int size); // NULL: zlib's malloc
    void (*zfree)(void *opaque, void *address);                           // NULL: zlib's free
    void *opaque;                 // private data object passed to zalloc and zfree
    int data_type;                // best guess about the data type
    unsigned long adler;          // Adler-32 or CRC-32 value of the uncompressed data
    unsigned long reserved;       // reserved for future use
};

/// zlib.h: Z_DEFLATED, Z_DEFAULT_STRATEGY, Z_NO_FLUSH and Z_FINISH; memLevel 8 is
/// deflateInit's default (DEF_MEM_LEVEL).
enum { KZ_DEFLATED = 8, KZ_DEFAULT_STRATEGY = 0, KZ_NO_FLUSH = 0, KZ_SYNC_FLUSH = 2, KZ_FINISH = 4, KZ_MEM_LEVEL = 8 };

/// The version handed to deflateInit2_: zlib compares only its first character with its
/// own, so this says "the 1.x ABI", which the layout above follows.
static const char header_version[] = "1.2.11";

struct kzlib_api {
    int (*deflate_init2)(struct kz_stream *stream, int level, int method, int window_bits, int mem_level,
                         int strategy, const char *version, int stream_size);
    int (*deflate)(struct kz_stream *stream, int flush);
    int (*deflate_end)(struct kz_stream *stream);
    int (*deflate_reset)(struct kz_stream *stream);
    int (*inflate_init2)(struct kz_stream *stream, int window_bits, const char *version, int stream_size);
    int (*inflate)(struct kz_stream *stream, int flush);
    int (*inflate_end)(struct kz_stream *stream);
    int (*inflate_reset)(struct kz_stream *stream);
    const char *(*version)(void);
};

struct kzlib_deflater {
    struct kz_stream stream;
};

struct kzlib_inflater {
    struct kz_stream stream;
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static struct kzlib_api api;
static const char *loaded_name = "";
static char load_error[1024];

/// Absolute paths on Apple platforms, where dyld would look in the current directory for a
/// bare name (see kcurl_load.c); elsewhere the runtime soname, then the development symlink.
#if defined(__APPLE__)
static const char *const library_names[] = {"/usr/lib/libz.1.dylib", "/usr/lib/libz.dylib"};
#else
static const char *const library_names[] = {"libz.so.1", "libz.so"};
#endif
static const int library_count = (int)(sizeof(library_names) / sizeof(library_names[0]));

/// Keeps `library` when it has the four functions and is zlib 1.x.
static int accept_zlib(void *library, const char *name, void *context, char *error, size_t capacity) {
    (void)name;
    (void)context;
    struct kzlib_api table;
    char missing[128] = "";
    int ok = kdl_resolve(library, "deflateInit2_", &table.deflate_init2, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "deflate", &table.deflate, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "deflateEnd", &table.deflate_end, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "deflateReset", &table.deflate_reset, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "inflateInit2_", &table.inflate_init2, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "inflate", &table.inflate, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "inflateEnd", &table.inflate_end, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "inflateReset", &table.inflate_reset, 1, missing, sizeof(missing));
    ok &= kdl_resolve(library, "zlibVersion", &table.version, 1, missing, sizeof(missing));
    if (!ok) {
        kdl_append(error, capacity, missing);
        dlclose(library);
        return 0;
    }
    const char *version = table.version();
    if (version == NULL || version[0] != header_version[0]) {
        kdl_append(error, capacity, " (version ");
        kdl_append(error, capacity, version != NULL ? version : "unknown");
        kdl_append(error, capacity, ", not 1.x)");
        dlclose(library);
        return 0;
    }
    api = table;
    return 1;
}

static void load_library(void) {
    int index = kdl_load("zlib", library_names, library_count, accept_zlib, load_error, sizeof(load_error));
    if (index >= 0) {
        loaded_name = library_names[index];
        loaded = 1;
    }
}

int kzlib_load(void) {
    pthread_once(&load_once, load_library);
    return loaded;
}

const char *kzlib_load_error(void) {
    kzlib_load();
    return load_error;
}

const char *kzlib_version(void) {
    if (!kzlib_load()) {
        return "";
    }
    return api.version();
}

const char *kzlib_library_name(void) {
    kzlib_load();
    return loaded_name;
}

kzlib_deflater *kzlib_deflater_create(int level, int window_bits, int *code) {
    if (!kzlib_load()) {
        *code = KZ_VERSION_ERROR;
        return NULL;
    }
    kzlib_deflater *deflater = calloc(1, sizeof(kzlib_deflater));
    if (deflater == NULL) {
        *code = KZ_MEM_ERROR;
        return NULL;
    }
    // zalloc, zfree and opaque are NULL (calloc): zlib then uses malloc and free.
    *code = api.deflate_init2(&deflater->stream, level, KZ_DEFLATED, window_bits, KZ_MEM_LEVEL,
                              KZ_DEFAULT_STRATEGY, header_version, (int)sizeof(struct kz_stream));
    if (*code != KZ_OK) {
        free(deflater);
        return NULL;
    }
    return deflater;
}

int kzlib_deflate(kzlib_deflater *deflater, const uint8_t *input, size_t input_count, size_t *consumed,
                  uint8_t *output, size_t output_capacity, size_t *produced, int flush_mode) {
    // avail_in and avail_out are 32-bit: larger spans are offered a part at a time.
    unsigned int in = input_count > 0x40000000u ? 0x40000000u : (unsigned int)input_count;
    unsigned int out = output_capacity > 0x40000000u ? 0x40000000u : (unsigned int)output_capacity;
    struct kz_stream *stream = &deflater->stream;
    stream->next_in = input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    // Z_FINISH (or Z_SYNC_FLUSH) only once all input is offered; otherwise zlib would end
    // the stream (or flush) early.
    int flush = KZ_NO_FLUSH;
    if (in == input_count && flush_mode == KZLIB_FLUSH_FINISH) {
        flush = KZ_FINISH;
    } else if (in == input_count && flush_mode == KZLIB_FLUSH_SYNC) {
        flush = KZ_SYNC_FLUSH;
    }
    int code = api.deflate(stream, flush);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    return code;
}

const char *kzlib_deflater_message(const kzlib_deflater *deflater) {
    return deflater->stream.msg != NULL ? deflater->stream.msg : "";
}

void kzlib_deflater_destroy(kzlib_deflater *deflater) {
    if (deflater == NULL) {
        return;
    }
    api.deflate_end(&deflater->stream);
    free(deflater);
}

int kzlib_deflater_reset(kzlib_deflater *deflater) {
    return api.deflate_reset(&deflater->stream);
}

kzlib_inflater *kzlib_inflater_create(int window_bits, int *code) {
    if (!kzlib_load()) {
        *code = KZ_VERSION_ERROR;
        return NULL;
    }
    kzlib_inflater *inflater = calloc(1, sizeof(kzlib_inflater));
    if (inflater == NULL) {
        *code = KZ_MEM_ERROR;
        return NULL;
    }
    // next_in and avail_in are 0 (calloc), as inflateInit2 requires.
    *code = api.inflate_init2(&inflater->stream, window_bits, header_version, (int)sizeof(struct kz_stream));
    if (*code != KZ_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

int kzlib_inflate(kzlib_inflater *inflater, const uint8_t *input, size_t input_count, size_t *consumed,
                  uint8_t *output, size_t output_capacity, size_t *produced) {
    unsigned int in = input_count > 0x40000000u ? 0x40000000u : (unsigned int)input_count;
    unsigned int out = output_capacity > 0x40000000u ? 0x40000000u : (unsigned int)output_capacity;
    struct kz_stream *stream = &inflater->stream;
    stream->next_in = input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    int code = api.inflate(stream, KZ_SYNC_FLUSH);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    return code;
}

int kzlib_inflater_reset(kzlib_inflater *inflater) {
    return api.inflate_reset(&inflater->stream);
}

const char *kzlib_inflater_message(const kzlib_inflater *inflater) {
    return inflater->stream.msg != NULL ? inflater->stream.msg : "";
}

void kzlib_inflater_destroy(kzlib_inflater *inflater) {
    if (inflater == NULL) {
        return;
    }
    api.inflate_end(&inflater->stream);
    free(inflater);
}
