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

/// One easy handle for GETs of `url` with the `header_count` "Name: value" lines of
/// `headers`, reused from one request to the next; NULL when curl cannot make one.
typedef struct cfl_handle cfl_handle;
cfl_handle *cfl_open(const char *url, const char *const *headers, int header_count);

/// One GET on `handle` (`curl_easy_perform`, blocking the calling thread until the answer is
/// in), its body given to `handler`; 1 when it succeeded, 0 when it failed: not 200, a curl
/// error, or refused by `handler`.
int cfl_get(cfl_handle *handle, cfl_body_handler handler, void *context);

void cfl_close(cfl_handle *handle);

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
