// Connections of the application's own: a CONNECT_ONLY handle connects (TCP or a Unix socket,
// a proxy's tunnel, TLS with the transport's trust) through the multi handle like any
// transfer, then stops, and its connection carries WebSocket frames through curl_easy_send
// and curl_easy_recv.
//
// Each such handle keeps its connection in a share handle of its own. In the multi handle's
// cache, curl 7.88 would close it as idle or too old whenever another transfer connects
// (url.c, prune_dead_connections), and curl_easy_send would search the whole cache for it on
// every call (connect.c, Curl_getconnectinfo).

#include "kcurl_api.h"

/// curl.h: CURLSHOPT_SHARE and CURL_LOCK_DATA_CONNECT.
enum { KCURLSHOPT_SHARE = 1, KCURL_LOCK_DATA_CONNECT = 5 };

int kcurl_has_connect_only(void) {
    const struct kcurl_api *api = kcurl_api();
    return api->easy_send != NULL && api->easy_recv != NULL && api->share_init != NULL
        && api->share_setopt != NULL && api->share_cleanup != NULL;
}

kcurl_share *kcurl_connection_share_create(void) {
    const struct kcurl_api *api = kcurl_api();
    void *share = api->share_init();
    if (share == NULL) {
        return NULL;
    }
    if (api->share_setopt(share, KCURLSHOPT_SHARE, (int)KCURL_LOCK_DATA_CONNECT) != 0) {
        api->share_cleanup(share);
        return NULL;
    }
    return (kcurl_share *)share;
}

void kcurl_connection_share_destroy(kcurl_share *share) {
    kcurl_api()->share_cleanup(share);
}

int kcurl_easy_setopt_share(kcurl_easy *easy, kcurl_share *share) {
    return kcurl_api()->easy_setopt(easy, (int)KCURLOPT_SHARE, (void *)share);
}

int kcurl_easy_send(kcurl_easy *easy, const void *buffer, size_t length, size_t *sent) {
    *sent = 0;
    return kcurl_api()->easy_send(easy, buffer, length, sent);
}

int kcurl_easy_recv(kcurl_easy *easy, void *buffer, size_t length, size_t *received) {
    *received = 0;
    return kcurl_api()->easy_recv(easy, buffer, length, received);
}

int kcurl_easy_active_socket(kcurl_easy *easy) {
    // curl_socket_t is an int on every platform but Windows.
    int socket = -1;
    if (kcurl_api()->easy_getinfo(easy, (int)KCURLINFO_ACTIVESOCKET, &socket) != 0) {
        return -1;
    }
    return socket;
}

// MARK: - Readiness (Linux): epoll, which Swift's Glibc module does not expose

#ifdef __linux__
#include <sys/epoll.h>
#include <unistd.h>

int kcurl_readiness_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int kcurl_readiness_add(int readiness, int socket, uint64_t id) {
    // Edge-triggered: a socket is reported when it becomes readable or writable.
    struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u64 = id};
    return epoll_ctl(readiness, EPOLL_CTL_ADD, socket, &event);
}

void kcurl_readiness_remove(int readiness, int socket) {
    struct epoll_event event = {0};
    epoll_ctl(readiness, EPOLL_CTL_DEL, socket, &event);
}

int kcurl_readiness_ready(int readiness, uint64_t *ids, int capacity) {
    struct epoll_event events[256];
    int count = epoll_wait(readiness, events, capacity < 256 ? capacity : 256, 0);
    for (int index = 0; index < count; index++) {
        ids[index] = events[index].data.u64;
    }
    return count < 0 ? 0 : count;
}

void kcurl_readiness_destroy(int readiness) {
    close(readiness);
}
#endif
