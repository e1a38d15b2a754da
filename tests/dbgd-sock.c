// SPDX-License-Identifier: GPL-2.0-only
/* dbgd-sock.c — sockets for tests/debuginfod.sh, on 127.0.0.1:
 *   dbgd-sock port             print a free port (closed again: a server
 *                              that is down)
 *   dbgd-sock silent           listen, print the port, accept every
 *                              connection and never answer
 *   dbgd-sock late SECS FILE   listen, print the port, answer every
 *                              request SECS seconds late with FILE (a
 *                              debuginfod server that is slow)
 *   dbgd-sock get PORT PATH    print the HTTP status of GET PATH (000
 *                              when nothing answers)
 * The servers run until killed. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(fd, 64) || getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("dbgd-sock: listen");
		exit(1);
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* Read a request's header (up to the blank line, or 64 KiB). */
static void read_request(int c)
{
	char buf[65536];
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(buf) - 1 && (r = read(c, buf + n, sizeof(buf) - 1 - n)) > 0) {
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			return;
	}
}

static void serve_late(int fd, double secs, const char *path)
{
	for (;;) {
		int c = accept(fd, NULL, NULL), f;
		char head[256], buf[65536];
		struct stat st;
		ssize_t r;

		if (c < 0)
			continue;
		read_request(c);
		usleep((useconds_t)(secs * 1e6));
		f = open(path, O_RDONLY);
		if (f >= 0 && fstat(f, &st) == 0) {
			int n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\n"
					 "Content-Length: %lld\r\nConnection: close\r\n\r\n",
					 (long long)st.st_size);

			if (write(c, head, (size_t)n) == n)
				while ((r = read(f, buf, sizeof(buf))) > 0 &&
				       write(c, buf, (size_t)r) == r)
					;
		}
		if (f >= 0)
			close(f);
		close(c);
	}
}

static int get(int port, const char *path)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char req[1024], resp[64] = "";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), n, code = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    write(fd, req, (size_t)n) == n && read(fd, resp, sizeof(resp) - 1) > 0)
		sscanf(resp, "HTTP/%*s %d", &code);
	printf("%03d\n", code);
	return 0;
}

int main(int argc, char **argv)
{
	int port, fd;

	if (argc == 2 && !strcmp(argv[1], "port")) {
		close(listener(&port));
		printf("%d\n", port);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "get"))
		return get(atoi(argv[2]), argv[3]);
	if (argc == 2 && !strcmp(argv[1], "silent")) {
		fd = listener(&port);
		printf("%d\n", port);
		fflush(stdout);
		for (;;)
			(void)accept(fd, NULL, NULL);	/* kept open, never answered */
	}
	if (argc == 4 && !strcmp(argv[1], "late")) {
		fd = listener(&port);
		printf("%d\n", port);
		fflush(stdout);
		serve_late(fd, atof(argv[2]), argv[3]);
	}
	fprintf(stderr, "usage: dbgd-sock port | silent | late SECS FILE | get PORT PATH\n");
	return 2;
}
