/*
 * bench/http_floor.c: the floor bench/serve.sh measures `mcpick serve --http` against: a
 * minimal HTTP/1.1 keep-alive server that does nothing but the HTTP. Each request's headers
 * and Content-Length body are read (pipelined requests too), and each gets the same fixed
 * JSON answer, as large as mcpick's 2026-07-28 `prompts/get` answer, with the headers mcpick
 * sends (Content-Type, Content-Length, Date). No JSON is parsed and nothing is checked: it is
 * what a server costs when the HTTP is all it does.
 *
 * One epoll loop per thread, each on its own SO_REUSEPORT listener (the kernel spreads the
 * connections), as many threads as cores by default: the two cores used as fairly as
 * mcpick's tokio runtime uses them.
 *
 *   gcc -O2 -pthread -o http_floor bench/http_floor.c
 *   ./http_floor PORT [THREADS] [BODY_BYTES]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define READ_BUF (64 * 1024)
#define MAX_EVENTS 256

static int port;
static char *answer;      /* the body */
static size_t answer_len;

struct conn {
    int fd;
    size_t used;          /* bytes in buf */
    char buf[READ_BUF];
    char *out;            /* what is left to write, when a write was short */
    size_t out_len, out_off;
};

/* The Date header's value, rebuilt at most once a second per thread. */
static __thread char date[64];
static __thread time_t date_at;

static const char *http_date(void) {
    time_t now = time(NULL);
    if (now != date_at) {
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        date_at = now;
    }
    return date;
}

static int listener(void) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) || listen(fd, 4096)) {
        perror("http_floor: bind/listen");
        exit(1);
    }
    return fd;
}

static void close_conn(int ep, struct conn *c) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->out);
    free(c);
}

/* The Content-Length of the header block head[0..len), or 0. */
static size_t content_length(const char *head, size_t len) {
    const char *p = head, *end = head + len;
    while (p < end) {
        const char *eol = memmem(p, end - p, "\r\n", 2);
        if (!eol) break;
        if (eol - p > 15 && strncasecmp(p, "content-length:", 15) == 0)
            return strtoul(p + 15, NULL, 10);
        p = eol + 2;
    }
    return 0;
}

/* Writes out[off..len); keeps what the socket did not take. 0: fine, -1: close. */
static int flush_out(int ep, struct conn *c) {
    while (c->out_off < c->out_len) {
        ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (n < 0) {
            if (errno == EAGAIN) {
                struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
                epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
                return 0;
            }
            return -1;
        }
        c->out_off += n;
    }
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_off = 0;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    return 0;
}

/* Answers every whole request in the buffer with one write. 0: fine, -1: close. */
static int serve(int ep, struct conn *c) {
    char reply[READ_BUF];
    size_t reply_len = 0, done = 0;
    for (;;) {
        char *head_end = memmem(c->buf + done, c->used - done, "\r\n\r\n", 4);
        if (!head_end) break;
        size_t head_len = head_end + 4 - (c->buf + done);
        size_t body = content_length(c->buf + done, head_len);
        if (head_len + body > READ_BUF) return -1;
        if (done + head_len + body > c->used) break;
        done += head_len + body;
        if (reply_len + 256 + answer_len > sizeof reply) return -1;
        reply_len += snprintf(reply + reply_len, sizeof reply - reply_len,
                              "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                              "content-length: %zu\r\ndate: %s\r\n\r\n",
                              answer_len, http_date());
        memcpy(reply + reply_len, answer, answer_len);
        reply_len += answer_len;
    }
    memmove(c->buf, c->buf + done, c->used - done);
    c->used -= done;
    if (reply_len == 0) return 0;
    if (c->out) { /* still writing the last answer: queue this one behind it */
        c->out = realloc(c->out, c->out_len + reply_len);
        memcpy(c->out + c->out_len, reply, reply_len);
        c->out_len += reply_len;
        return 0;
    }
    ssize_t n = write(c->fd, reply, reply_len);
    if (n < 0 && errno != EAGAIN) return -1;
    if (n < 0) n = 0;
    if ((size_t)n < reply_len) {
        c->out = malloc(reply_len - n);
        memcpy(c->out, reply + n, reply_len - n);
        c->out_len = reply_len - n;
        c->out_off = 0;
        return flush_out(ep, c);
    }
    return 0;
}

static void *worker(void *unused) {
    (void)unused;
    int lfd = listener();
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    struct epoll_event events[MAX_EVENTS];
    for (;;) {
        int n = epoll_wait(ep, events, MAX_EVENTS, -1);
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (!c) { /* the listener */
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    c = calloc(1, sizeof *c);
                    c->fd = fd;
                    struct epoll_event cev = {.events = EPOLLIN, .data.ptr = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                }
                continue;
            }
            if (events[i].events & EPOLLOUT && c->out && flush_out(ep, c)) {
                close_conn(ep, c);
                continue;
            }
            if (!(events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
            ssize_t got = read(c->fd, c->buf + c->used, READ_BUF - c->used);
            if (got == 0 || (got < 0 && errno != EAGAIN)) {
                close_conn(ep, c);
                continue;
            }
            if (got > 0) {
                c->used += got;
                if (serve(ep, c)) close_conn(ep, c);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: http_floor PORT [THREADS] [BODY_BYTES]\n");
        return 2;
    }
    port = atoi(argv[1]);
    long threads = argc > 2 ? atol(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
    answer_len = argc > 3 ? strtoul(argv[3], NULL, 10) : 541;
    /* A JSON-RPC answer of that size: {"jsonrpc":"2.0","id":1,"result":{"text":"xxx…"}} */
    const char *open = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"", *close_ = "\"}}";
    size_t fixed = strlen(open) + strlen(close_);
    if (answer_len < fixed) answer_len = fixed;
    answer = malloc(answer_len);
    memcpy(answer, open, strlen(open));
    memset(answer + strlen(open), 'x', answer_len - fixed);
    memcpy(answer + answer_len - strlen(close_), close_, strlen(close_));
    pthread_t ids[64];
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    for (long t = 1; t < threads; t++) pthread_create(&ids[t], NULL, worker, NULL);
    worker(NULL);
    return 0;
}
