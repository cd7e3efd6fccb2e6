// CurlFloor: libcurl driven directly, with no Kringle code, for the floor benchmark
// (`kringle-benchmarks floor`): what a GET costs when nothing stands between the caller and
// libcurl. Only the benchmarks link it.
#pragma once

#include <stddef.h>

/// Called with each response's body, on the thread that runs the loop; returns 1 when the
/// body was what the caller expected (it decodes it), 0 otherwise.
typedef int (*cfl_body_handler)(const char *bytes, size_t length, void *context);

/// Opens libcurl (the same library names the transport tries); 1 on success, otherwise 0 and
/// a reason in `error`.
int cfl_load(char *error, size_t capacity);

/// `count` GETs of `url`, one after another on one reused easy handle (`curl_easy_perform`),
/// each sending the `header_count` "Name: value" lines of `headers`. Returns how many failed:
/// not 200, a curl error, or refused by `handler`.
int cfl_sequential(
    const char *url, const char *const *headers, int header_count, int count, cfl_body_handler handler,
    void *context);

/// The same with `in_flight` easy handles on one multi handle, each re-added as it finishes
/// until `count` have been sent; the loop waits in `curl_multi_poll`.
int cfl_multi(
    const char *url, const char *const *headers, int header_count, int count, int in_flight,
    cfl_body_handler handler, void *context);
