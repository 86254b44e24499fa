// SPDX-License-Identifier: GPL-2.0
/*
 * kmemtrace serve: an agent for the monitoring a fleet already runs.
 * top's in-kernel counting (lib/bpf/serve.c) read every interval and
 * served over HTTP by libmicrohttpd: /metrics for Prometheus, and
 * /debug/pprof/heap and /allocs as Go's net/http/pprof serves them; or
 * written for node_exporter's textfile collector.  Each connection has
 * its thread; one lock keeps the model whole between them and the
 * interval's update.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/allocinfo.h"
#include "bpf-run.h"
#include "bpf/cgroups.h"
#include "bpf/names.h"
#include "bpf/serve.h"
#include "builtin.h"
#include "options.h"
#include "render/render.h"
#include "report/report.h"
#include "source/allocinfo.h"
#include "util/gzip.h"

static const char *const serve_usage[] = {
	"kmemtrace serve [--listen <addr>:<port> | --textfile <dir>] [<options>]",
	NULL
};

#define DEFAULT_LISTEN	"127.0.0.1:9474"
#define PROC_ALLOCINFO	"/proc/allocinfo"
/* a delta profile's longest wait, as a scrape should be */
#define MAX_SECONDS	300

/* what the signal handlers say to the main loop */
static volatile sig_atomic_t stop_signal, hup_signal;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup_signal = 1;
	else
		stop_signal = sig;
}

struct agent {
	pthread_mutex_t lock;
	struct kmt_bpf_config cfg;
	struct kmt_bpf bpf;
	struct kmt_bpf_names names;
	struct kmt_cgroups cgroups;
	int have_cgroups;
	struct kmt_serve s;
	size_t top;
	int loaded;
	/* read at each scrape; NULL: the kernel has none */
	const char *allocinfo;
	/* ?seconds=N profiles waiting now, under lock */
	int waiting;
};

/*
 * Connections at once, and of them the profiles that wait ?seconds=N:
 * a wait holds its connection, and waits alone must never leave a
 * scrape of /metrics without one
 */
#define MAX_CONNECTIONS		64U
#define MAX_WAITING		8

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* loads and attaches the programs; 0, or the exit code after a message */
static int agent_load(struct agent *a)
{
	int code = bpf_run_open(&a->bpf, &a->cfg);

	if (code)
		return code;
	if (kmt_bpf_names_init(&a->names)) {
		kmt_error(KMT_EXIT_RUNTIME, "%s", a->names.sess.errmsg);
		kmt_bpf_close(&a->bpf);
		return KMT_EXIT_RUNTIME;
	}
	if (kmt_bpf_attach(&a->bpf)) {
		kmt_error(KMT_EXIT_RUNTIME, "cannot use BPF: %s; 'kmemtrace record' traces without it",
			  a->bpf.errmsg);
		kmt_bpf_names_free(&a->names);
		kmt_bpf_close(&a->bpf);
		return KMT_EXIT_RUNTIME;
	}
	kmt_serve_init(&a->s, &a->bpf, &a->names,
		       a->have_cgroups ? &a->cgroups : NULL, a->top, now_ns());
	a->s.version = KMT_VERSION;
	a->s.start_unix = (uint64_t)time(NULL);
	a->loaded = 1;
	return 0;
}

/* every program detached, every map and descriptor given back */
static void agent_unload(struct agent *a)
{
	if (!a->loaded)
		return;
	kmt_serve_free(&a->s);
	kmt_bpf_detach(&a->bpf);
	kmt_bpf_names_free(&a->names);
	kmt_bpf_close(&a->bpf);
	a->loaded = 0;
}

/* the model's update, under the lock; 0 or -1 after a message */
static int agent_update(struct agent *a)
{
	int ret;

	pthread_mutex_lock(&a->lock);
	ret = kmt_serve_update(&a->s, now_ns());
	if (ret)
		kmt_error(KMT_EXIT_RUNTIME, "%s", a->s.errmsg);
	pthread_mutex_unlock(&a->lock);
	return ret ? -1 : 0;
}

/* the metrics of the last update into a buffer; NULL when out of memory */
static char *metrics_text(struct agent *a, int om, size_t *len)
{
	struct kmt_report r;
	char *buf = NULL;
	FILE *f;
	int ret;

	struct kmt_strtab names;
	struct kmt_allocinfo ai;
	int ai_open = 0, have_ai = 0;

	*len = 0;
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	/*
	 * read whole at each scrape, out of the lock: the kernel's totals
	 * now, and nothing kept between scrapes; one that cannot be read
	 * says so in kmemtrace_allocinfo_up
	 */
	if (a->allocinfo && !kmt_strtab_init(&names)) {
		kmt_allocinfo_init(&ai, &names);
		ai_open = 1;
		have_ai = !kmt_allocinfo_read(&ai, a->allocinfo);
	}
	kmt_report_init(&r);
	pthread_mutex_lock(&a->lock);
	ret = kmt_serve_metrics(&a->s, &r);
	pthread_mutex_unlock(&a->lock);
	if (!ret)
		ret = kmt_ai_metrics(&r, have_ai ? &ai : NULL, a->top);
	if (!ret)
		ret = om ? kmt_render_openmetrics(&r, f) :
			   kmt_render_prom(&r, f);
	kmt_report_free(&r);
	if (ai_open) {
		kmt_allocinfo_free(&ai);
		kmt_strtab_free(&names);
	}
	if (fclose(f) || ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Waits s seconds, or less when asked to stop or when the client hangs
 * up (fd its socket, -1 not known): 0, or -1 when it hung up
 */
static int wait_seconds(int s, int fd)
{
	uint64_t end = now_ns() + s * 1000000000ULL;

	while (!stop_signal && now_ns() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLRDHUP };

		if (fd < 0) {
			struct timespec ts = { 0, 100 * 1000000L };

			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(&pfd, 1, 100) > 0 &&
		    (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)))
			return -1;
	}
	return 0;
}

/* the heap profile, or its change over seconds; NULL on failure */
static char *profile_data(struct agent *a, int seconds, int fd,
			  const char *weight, size_t *len)
{
	struct kmt_serve_profile base = { 0 }, p = { 0 };
	struct kmt_report r;
	char *buf = NULL;
	FILE *f;
	int ret = 0;

	*len = 0;
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	kmt_report_init(&r);
	kmt_report_meta_here(&r, "the running kernel", "bpf");
	if (seconds) {
		pthread_mutex_lock(&a->lock);
		ret = kmt_serve_update(&a->s, now_ns()) ||
		      kmt_serve_profile_take(&a->s, &base);
		pthread_mutex_unlock(&a->lock);
		if (!ret)
			ret = wait_seconds(seconds, fd);
	}
	pthread_mutex_lock(&a->lock);
	if (!ret)
		ret = kmt_serve_update(&a->s, now_ns()) ||
		      kmt_serve_profile_take(&a->s, &p) ||
		      kmt_serve_profile_report(&a->s, &p, seconds ? &base : NULL,
					       weight, &r);
	pthread_mutex_unlock(&a->lock);
	if (!ret)
		ret = kmt_render_pprof(&r, f);
	kmt_report_free(&r);
	kmt_serve_profile_free(&base);
	kmt_serve_profile_free(&p);
	if (fclose(f) || ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* whether the client takes a gzipped body (Prometheus asks for one) */
static int takes_gzip(struct MHD_Connection *c)
{
	const char *ae = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_ACCEPT_ENCODING);

	return ae && strstr(ae, "gzip") && !strstr(ae, "gzip;q=0");
}

/* *body gzipped in its place: 1, or 0 (the plain body kept) */
static int gzip_body(char **body, size_t *len)
{
	char *z = NULL;
	size_t zlen = 0;
	FILE *f = open_memstream(&z, &zlen);
	int err;

	if (!f)
		return 0;
	err = kmt_gzip_to(*body, *len, f);
	if (fclose(f) || err) {
		free(z);
		return 0;
	}
	free(*body);
	*body = z;
	*len = zlen;
	return 1;
}

/*
 * flags: RESP_FREE, body is ours to free; RESP_GZIP, gzip it for a
 * client that takes it; RESP_ALLOW, say which methods there are (405)
 */
#define RESP_FREE	1
#define RESP_GZIP	2
#define RESP_ALLOW	4

static enum MHD_Result respond(struct MHD_Connection *c, unsigned int status,
			       const char *type, char *body, size_t len,
			       int flags)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	int gz = (flags & RESP_GZIP) && (flags & RESP_FREE) && takes_gzip(c) &&
		 gzip_body(&body, &len);

	resp = MHD_create_response_from_buffer(len, body, flags & RESP_FREE ?
					       MHD_RESPMEM_MUST_FREE :
					       MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		if (flags & RESP_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (flags & RESP_GZIP)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY,
					MHD_HTTP_HEADER_ACCEPT_ENCODING);
	if (gz)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING,
					"gzip");
	if (flags & RESP_ALLOW)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					"GET, HEAD");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result error_page(struct MHD_Connection *c,
				  unsigned int status, const char *text)
{
	return respond(c, status, "text/plain; charset=utf-8", (char *)text,
		       strlen(text),
		       status == MHD_HTTP_METHOD_NOT_ALLOWED ? RESP_ALLOW : 0);
}

static const char index_page[] =
	"kmemtrace serve: kernel memory allocation, counted in the kernel\n"
	"\n"
	"/metrics             Prometheus metrics (OpenMetrics when asked)\n"
	"/debug/pprof/heap    live objects by stack (?seconds=N: the change over N s)\n"
	"/debug/pprof/allocs  the same profile, alloc_space first\n";

/* a profile's ?seconds=N: 0 none, -1 not a number of 1 to MAX_SECONDS */
static int seconds_arg(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						    "seconds");
	char *end;
	long n;

	if (!v)
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > MAX_SECONDS)
		return -1;
	return (int)n;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct agent *a = cls;
	const char *weight = NULL, *accept;
	size_t len;
	char *body;
	int secs, om;

	(void)version;
	(void)upload;
	(void)con_cls;
	if (*upload_size)
		return error_page(c, MHD_HTTP_BAD_REQUEST, "no body expected\n");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return error_page(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "GET only\n");
	if (!strcmp(url, "/"))
		return error_page(c, MHD_HTTP_OK, index_page);
	if (!strcmp(url, "/metrics")) {
		accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_ACCEPT);
		om = accept && strstr(accept, "application/openmetrics-text");
		body = metrics_text(a, om, &len);
		if (!body)
			return error_page(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					  "out of memory\n");
		return respond(c, MHD_HTTP_OK, om ?
			       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
			       "text/plain; version=0.0.4; charset=utf-8",
			       body, len, RESP_FREE | RESP_GZIP);
	}
	if (!strcmp(url, "/debug/pprof/heap"))
		weight = "inuse_space";
	else if (!strcmp(url, "/debug/pprof/allocs"))
		weight = "alloc_space";
	if (!weight)
		return error_page(c, MHD_HTTP_NOT_FOUND,
				  "not found: see / for what is served\n");
	secs = seconds_arg(c);
	if (secs < 0)
		return error_page(c, MHD_HTTP_BAD_REQUEST,
				  "seconds: a whole number of 1 to 300\n");
	if (secs) {
		const union MHD_ConnectionInfo *ci;
		int busy;

		pthread_mutex_lock(&a->lock);
		busy = a->waiting >= MAX_WAITING;
		if (!busy)
			a->waiting++;
		pthread_mutex_unlock(&a->lock);
		if (busy)
			return error_page(c, MHD_HTTP_SERVICE_UNAVAILABLE,
					  "too many profiles waiting ?seconds=N at once; try again later\n");
		ci = MHD_get_connection_info(c,
				MHD_CONNECTION_INFO_CONNECTION_FD);
		body = profile_data(a, secs, ci ? ci->connect_fd : -1, weight,
				    &len);
		pthread_mutex_lock(&a->lock);
		a->waiting--;
		pthread_mutex_unlock(&a->lock);
	} else {
		body = profile_data(a, 0, -1, weight, &len);
	}
	if (!body)
		return error_page(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "cannot make the profile\n");
	return respond(c, MHD_HTTP_OK, "application/octet-stream", body, len,
		       RESP_FREE);
}

/* whether every address of addr is this machine's loopback */
static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) &&
			in6->sin6_addr.s6_addr[12] == 127);
	}
	return 0;
}

/*
 * "host:port", "[v6]:port" into *res (freeaddrinfo it); 0, or the exit
 * code after the message
 */
static int parse_listen(const char *arg, int allow_remote,
			struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE,
	};
	char host[256];
	const char *colon = strrchr(arg, ':'), *h = host;
	unsigned long port;
	size_t n;
	int err;

	if (!colon || !colon[1] || strspn(colon + 1, "0123456789") !=
	    strlen(colon + 1))
		return kmt_usage_error("option '--listen' needs <addr>:<port>, not '%s'",
				       arg);
	port = strtoul(colon + 1, NULL, 10);
	if (strlen(colon + 1) > 5 || port < 1 || port > 65535)
		return kmt_usage_error("option '--listen': the port of '%s' is not one of 1 to 65535",
				       arg);
	n = (size_t)(colon - arg);
	if (n >= sizeof(host))
		return kmt_usage_error("option '--listen': address too long in '%s'",
				       arg);
	memcpy(host, arg, n);
	host[n] = '\0';
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host[n - 1] = '\0';
		h = host + 1;
	}
	err = getaddrinfo(*h ? h : NULL, colon + 1, &hints, res);
	if (err)
		return kmt_usage_error("option '--listen': cannot resolve '%s': %s",
				       arg, gai_strerror(err));
	if (!allow_remote && (!*h || !is_loopback((*res)->ai_addr))) {
		freeaddrinfo(*res);
		return kmt_usage_error("refusing to listen on '%s', beyond this machine: it exposes the kernel's callsites (--allow-remote allows it)",
				       arg);
	}
	return 0;
}

/* "listening on http://ADDR:PORT/", an IPv6 address in brackets */
static void url_of(char *buf, size_t size, const char *listen)
{
	const char *colon = strrchr(listen, ':');

	if (listen[0] != '[' && colon && memchr(listen, ':', colon - listen))
		snprintf(buf, size, "listening on http://[%.*s]%s/",
			 (int)(colon - listen), listen, colon);
	else
		snprintf(buf, size, "listening on http://%s/", listen);
}

/* the metrics as DIR/kmemtrace.prom, renamed into place whole */
static int write_textfile(struct agent *a, const char *path)
{
	char tmp[PATH_MAX];
	size_t len;
	char *text = metrics_text(a, 0, &len);
	FILE *f;
	int err = 0;

	if (!text)
		return kmt_error(KMT_EXIT_RUNTIME, "out of memory");
	f = kmt_open_output_whole(path, tmp, sizeof(tmp));
	if (!f) {
		free(text);
		return kmt_error(KMT_EXIT_RUNTIME, "cannot write '%s': %s",
				 path, strerror(errno));
	}
	if (fwrite(text, 1, len, f) != len)
		err = errno;
	free(text);
	return kmt_close_output_whole(f, path, tmp, err);
}

static void set_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* the signals, held in the server's threads: the main loop takes them */
static void hold_signals(int hold)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(hold ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

int cmd_serve(int argc, char **argv)
{
	const char *listen = NULL, *textfile = NULL, *allocinfo = NULL;
	uint64_t interval = 5000000000ULL;
	int top = 20, sample = 64, allow_remote = 0, cgroups = 0;
	const struct kmt_option options[] = {
		OPT_STRING(0, "listen", &listen, "addr:port", "serve HTTP there (default " DEFAULT_LISTEN ")"),
		OPT_BOOL(0, "allow-remote", &allow_remote, "allow --listen beyond the loopback"),
		OPT_STRING(0, "textfile", &textfile, "dir", "write <dir>/kmemtrace.prom every interval instead (node_exporter's textfile collector)"),
		OPT_DURATION_MIN(0, "interval", &interval, "duration", 100000000,
				 "read the kernel's maps every <duration> (default 5s, at least 100ms)"),
		OPT_INT(0, "top", &top, "n", 1, 10000, "callsites, caches and cgroups kept per kind (default 20), the rest in one \"(other)\" series"),
		OPT_BOOL(0, "cgroups", &cgroups, "also count by memory cgroup (dearer: a few reads of the task on every event)"),
		OPT_INT(0, "sample", &sample, "n", 1, 1 << 30, "follow 1 address in <n> for the live objects (power of two, default 64)"),
		OPT_STRING(0, "allocinfo", &allocinfo, "file",
			   "the allocation profiling totals from <file> at each scrape (default " PROC_ALLOCINFO ", where the kernel has it)"),
		OPT_END()
	};
	struct agent a;
	struct addrinfo *ai = NULL;
	struct MHD_Daemon *d = NULL;
	char pinned[32], state[32], path[PATH_MAX], where[PATH_MAX + 64];
	struct stat st;
	uint64_t next;
	int nargs, code = 0;

	nargs = kmt_parse_options(argc, argv, options, serve_usage, 0);
	if (nargs > 0)
		return kmt_usage_error("unexpected argument '%s'", argv[0]);
	if (sample & (sample - 1))
		return kmt_usage_error("option '--sample' needs a power of two, not '%d'",
				       sample);
	if (listen && textfile)
		return kmt_usage_error("options '--listen' and '--textfile' exclude each other");
	if (textfile) {
		if ((size_t)snprintf(path, sizeof(path), "%s/kmemtrace.prom",
				     textfile) >= sizeof(path))
			return kmt_usage_error("option '--textfile': path too long");
		if (stat(textfile, &st) || access(textfile, W_OK))
			return kmt_error(KMT_EXIT_RUNTIME, "cannot write in '%s': %s",
					 textfile, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return kmt_error(KMT_EXIT_RUNTIME, "cannot write in '%s': not a directory",
					 textfile);
		snprintf(where, sizeof(where), "writing %s", path);
	} else {
		code = parse_listen(listen ? listen : DEFAULT_LISTEN,
				    allow_remote, &ai);
		if (code)
			return code;
		url_of(where, sizeof(where), listen ? listen : DEFAULT_LISTEN);
	}

	if (allocinfo && access(allocinfo, R_OK))
		return kmt_error(KMT_EXIT_RUNTIME, "cannot read '%s': %s",
				 allocinfo, strerror(errno));

	memset(&a, 0, sizeof(a));
	a.top = (size_t)top;
	a.allocinfo = allocinfo ? allocinfo :
		      !access(PROC_ALLOCINFO, R_OK) ? PROC_ALLOCINFO : NULL;
	if (cgroups) {
		if (kmt_cgroups_init(&a.cgroups)) {
			kmt_cgroups_free(&a.cgroups);
			code = kmt_error(KMT_EXIT_RUNTIME, "cannot count by cgroup: %s",
					 a.cgroups.errmsg);
			goto out_addr;
		}
		a.have_cgroups = 1;
	}
	pthread_mutex_init(&a.lock, NULL);
	kmt_serve_config(&a.cfg, (uint32_t)sample,
			 a.have_cgroups ? a.cgroups.mode : KMT_CG_OFF);
	a.cfg.self = getpid();
	set_signals();
	code = agent_load(&a);
	if (code)
		goto out;
	if (!textfile) {
		hold_signals(1);
		d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
				     MHD_USE_INTERNAL_POLLING_THREAD |
				     (ai->ai_family == AF_INET6 ?
				      MHD_USE_IPv6 : 0),
				     0, NULL, NULL, on_request, &a,
				     MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				     MHD_OPTION_CONNECTION_LIMIT,
				     MAX_CONNECTIONS,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10U,
				     MHD_OPTION_END);
		hold_signals(0);
		if (!d) {
			code = kmt_error(KMT_EXIT_RUNTIME, "cannot listen on '%s': %s",
					 listen ? listen : DEFAULT_LISTEN,
					 strerror(errno));
			goto out;
		}
	}
	fprintf(stderr, "kmemtrace serve: %s, live sampled 1 in %u, up to %d series per kind of %s; the maps pin %s of kernel memory, the state at most %s\n",
		where, a.bpf.cfg.sample, top + 1,
		a.have_cgroups ? "callsites, caches and cgroups" :
		"callsites and caches",
		bpf_run_size(pinned, sizeof(pinned),
			     (double)kmt_bpf_pinned_bytes(&a.bpf.cfg, a.bpf.nr_cpus)),
		bpf_run_size(state, sizeof(state),
			     (double)kmt_serve_state_bytes(&a.bpf.cfg, a.top)));
	if (a.allocinfo)
		fprintf(stderr, "kmemtrace serve: the allocation tags of %s at each scrape, up to %d series\n",
			a.allocinfo, top + 1);
	else
		fprintf(stderr, "kmemtrace serve: no " PROC_ALLOCINFO " (a kernel without allocation profiling): kmemtrace_allocinfo_up 0\n");
	next = now_ns();
	while (!stop_signal) {
		struct timespec ts = { 0, 50 * 1000000L };

		if (hup_signal) {
			/* a fresh load: the counters start again from 0 */
			hup_signal = 0;
			pthread_mutex_lock(&a.lock);
			agent_unload(&a);
			code = agent_load(&a);
			pthread_mutex_unlock(&a.lock);
			if (code)
				break;
			fprintf(stderr, "kmemtrace serve: SIGHUP: programs loaded again, counters from 0\n");
			next = now_ns();
		}
		if (now_ns() >= next) {
			next += interval;
			if (agent_update(&a)) {
				code = KMT_EXIT_RUNTIME;
				break;
			}
			if (textfile) {
				code = write_textfile(&a, path);
				if (code)
					break;
			}
		}
		nanosleep(&ts, NULL);
	}
	if (d)
		MHD_stop_daemon(d);
	if (stop_signal)
		fprintf(stderr, "kmemtrace serve: %s: stopped\n",
			strsignal(stop_signal));
out:
	pthread_mutex_lock(&a.lock);
	agent_unload(&a);
	pthread_mutex_unlock(&a.lock);
	pthread_mutex_destroy(&a.lock);
	if (a.have_cgroups)
		kmt_cgroups_free(&a.cgroups);
out_addr:
	if (ai)
		freeaddrinfo(ai);
	return code;
}
