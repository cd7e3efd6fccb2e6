// What the loaded libcurl says of itself (curl_version_info): the protocols it speaks, and the
// content codings it decodes.

#include "kcurl_api.h"

#include <string.h>

/// curl.h: the first fields of `curl_version_info_data`, as every age of it starts.
struct kcurl_version_info_prefix {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
    long ssl_version_num;
    const char *libz_version;
    const char *const *protocols;
};

int kcurl_supports_protocol(const char *name) {
    const struct kcurl_api *api = kcurl_api();
    if (api->version_info == NULL) {
        return -1;
    }
    const struct kcurl_version_info_prefix *info = api->version_info(0);  // CURLVERSION_FIRST
    if (info == NULL || info->protocols == NULL) {
        return -1;
    }
    for (const char *const *protocol = info->protocols; *protocol != NULL; protocol++) {
        if (strcmp(*protocol, name) == 0) {
            return 1;
        }
    }
    return 0;
}

/// curl.h: the feature bits of the decoders (CURL_VERSION_LIBZ, _BROTLI, _ZSTD).
enum { KCURL_VERSION_LIBZ = 1 << 3, KCURL_VERSION_BROTLI = 1 << 23, KCURL_VERSION_ZSTD = 1 << 26 };

const char *kcurl_content_encodings(void) {
    const struct kcurl_api *api = kcurl_api();
    if (api->version_info == NULL) {
        return NULL;
    }
    const struct kcurl_version_info_prefix *info = api->version_info(0);  // CURLVERSION_FIRST
    if (info == NULL) {
        return NULL;
    }
    // What curl writes itself for CURLOPT_ACCEPT_ENCODING "" (content_encoding.c,
    // Curl_all_content_encodings): its decoders in the order it keeps them, identity left
    // out, or identity alone when it has none.
    static const char *const lists[8] = {
        "identity", "deflate, gzip", "br", "deflate, gzip, br",
        "zstd", "deflate, gzip, zstd", "br, zstd", "deflate, gzip, br, zstd",
    };
    int index = ((info->features & KCURL_VERSION_LIBZ) ? 1 : 0) | ((info->features & KCURL_VERSION_BROTLI) ? 2 : 0)
        | ((info->features & KCURL_VERSION_ZSTD) ? 4 : 0);
    return lists[index];
}
