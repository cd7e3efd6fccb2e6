// Non-variadic wrappers around libcurl's easy interface and header lists.
//
// Each setopt/getinfo wrapper passes exactly the argument type curl's documentation gives
// for that kind of option (long, pointer, curl_off_t, function pointer), which is what the
// variadic C functions read back with va_arg.

#include "kcurl_api.h"

kcurl_easy *kcurl_easy_init(void) {
    return (kcurl_easy *)kcurl_api()->easy_init();
}

void kcurl_easy_cleanup(kcurl_easy *easy) {
    kcurl_api()->easy_cleanup(easy);
}

void kcurl_easy_reset(kcurl_easy *easy) {
    kcurl_api()->easy_reset(easy);
}

int kcurl_easy_setopt_long(kcurl_easy *easy, kcurl_option option, long value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_pointer(kcurl_easy *easy, kcurl_option option, const void *value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_off_t(kcurl_easy *easy, kcurl_option option, int64_t value) {
    // curl_off_t is a 64-bit signed integer on every platform curl supports.
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_callback(kcurl_easy *easy, kcurl_option option, kcurl_data_callback value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_xferinfo(kcurl_easy *easy, kcurl_option option, kcurl_xferinfo_callback value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_seek(kcurl_easy *easy, kcurl_option option, kcurl_seek_callback value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_blob(kcurl_easy *easy, kcurl_option option, const void *data, size_t length) {
    struct kcurl_blob blob = {(void *)data, length, KCURL_BLOB_COPY};
    return kcurl_api()->easy_setopt(easy, (int)option, &blob);
}

int kcurl_easy_getinfo_long(kcurl_easy *easy, kcurl_info info, long *value) {
    return kcurl_api()->easy_getinfo(easy, (int)info, value);
}

int kcurl_easy_getinfo_string(kcurl_easy *easy, kcurl_info info, const char **value) {
    return kcurl_api()->easy_getinfo(easy, (int)info, value);
}

int kcurl_easy_getinfo_off_t(kcurl_easy *easy, kcurl_info info, int64_t *value) {
    return kcurl_api()->easy_getinfo(easy, (int)info, value);
}

int kcurl_easy_unpause(kcurl_easy *easy) {
    return kcurl_api()->easy_pause(easy, 0);  // CURLPAUSE_CONT
}

const char *kcurl_easy_strerror(int code) {
    return kcurl_api()->easy_strerror(code);
}

kcurl_slist *kcurl_slist_append(kcurl_slist *list, const char *line) {
    return kcurl_api()->slist_append(list, line);
}

void kcurl_slist_free_all(kcurl_slist *list) {
    kcurl_api()->slist_free_all(list);
}
