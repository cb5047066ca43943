/*
 * bench_pk_cluster.c — the throwaway PostgreSQL cluster of "chronoid
 * bench-pk", in C what scripts/pgcluster.sh does in bash: a fresh temporary
 * directory, initdb and pg_ctl as the postgres OS user when run as root,
 * a Unix socket only, and the directory removed whatever happened.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_pk_internal.h"

/*
 * Run argv, its output appended to log (NULL: discarded); as_owner: as the
 * postgres OS user when we are root (initdb refuses root).  Returns the
 * exit status, -1 when it could not run or was killed.
 */
static int
run_cmd(const char *const *argv, const char *log, bool as_owner)
{
	const char *full[16];
	int			n = 0,
				i,
				status;
	pid_t		pid;

	if (as_owner && geteuid() == 0)
	{
		full[n++] = "runuser";
		full[n++] = "-u";
		full[n++] = "postgres";
		full[n++] = "--";
	}
	for (i = 0; argv[i] != NULL && n < 15; i++)
		full[n++] = argv[i];
	full[n] = NULL;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
	{
		int			fd = open(log != NULL ? log : "/dev/null",
							  O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0)
		{
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
		{
			dup2(fd, 0);
			close(fd);
		}
		execvp(full[0], (char *const *) full);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
	{
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first line pg_config prints for opt ("--bindir"...). */
static bool
pg_config(const char *opt, char *out, size_t outlen)
{
	const char *prog = getenv("PG_CONFIG");
	char		cmd[512];
	FILE	   *p;
	bool		ok;

	bpk_fmt(cmd, sizeof(cmd), "'%s' %s 2>/dev/null",
			 prog != NULL && *prog != '\0' && strchr(prog, '\'') == NULL ? prog : "pg_config",
			 opt);
	/* The one shell use: pg_config's path, refused above if it has a quote. */
	p = popen(cmd, "r");		/* NOLINT(cert-env33-c) */
	if (p == NULL)
		return false;
	ok = fgets(out, (int) outlen, p) != NULL;
	if (pclose(p) != 0)
		ok = false;
	if (ok)
		out[strcspn(out, "\n")] = '\0';
	return ok && out[0] != '\0';
}

static bool
exists(const char *dir, const char *name)
{
	char		path[600];
	struct stat st;

	bpk_fmt(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/*
 * A port no local server answers on, as pgcluster.sh picks it: the port
 * only names our socket file, but a stray PGHOST must not reach another.
 */
static int
free_port(const char *bindir)
{
	char		isready[300],
				portbuf[16];
	int			p;

	bpk_fmt(isready, sizeof(isready), "%s/pg_isready", bindir);
	for (p = 5490; p < 5600; p++)
	{
		const char *a1[] = {isready, "-q", "-h", "localhost", "-p", portbuf, NULL};
		const char *a2[] = {isready, "-q", "-h", "/var/run/postgresql", "-p", portbuf, NULL};

		bpk_fmt(portbuf, sizeof(portbuf), "%d", p);
		/* pg_isready exits 2 when nothing answers. */
		if (run_cmd(a1, NULL, false) == 2 && run_cmd(a2, NULL, false) == 2)
			return p;
	}
	return -1;
}

static bool
append_conf(const bpk_cluster *c, char *err, size_t errlen)
{
	char		path[600];
	FILE	   *fp;

	/* Appending keeps the file's owner (postgres). */
	bpk_fmt(path, sizeof(path), "%s/data/postgresql.conf", c->dir);
	fp = fopen(path, "a");
	if (fp == NULL || fputs(c->conf, fp) == EOF || fclose(fp) != 0)
	{
		bpk_fmt(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return false;
	}
	return true;
}

/* The last line of a log file that says something, for a message. */
static void
log_tail(const char *path, char *out, size_t outlen)
{
	FILE	   *fp = fopen(path, "r");
	char		line[512];

	out[0] = '\0';
	if (fp == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
	{
		if (strspn(line, " \t\r\n") != strlen(line))
			cid_pq_one_line(out, outlen, line);
	}
	fclose(fp);
}

bool
bpk_cluster_start(bpk_cluster *c, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char		pkglib[256],
				sharedir[256],
				path[600],
				data[300],
				log[300],
				tail[300];
	struct passwd *pw = NULL;
	int			n;

	memset(c, 0, sizeof(*c));
	if (geteuid() == 0 && (pw = getpwnam("postgres")) == NULL)
	{
		bpk_fmt(err, errlen, "running as root and there is no postgres OS user to run a throwaway server as (or give --conninfo)");
		return false;
	}
	if (!pg_config("--bindir", c->bindir, sizeof(c->bindir)) ||
		!pg_config("--pkglibdir", pkglib, sizeof(pkglib)) ||
		!pg_config("--sharedir", sharedir, sizeof(sharedir)))
	{
		bpk_fmt(err, errlen, "pg_config not found or failed: a throwaway cluster needs the PostgreSQL server (or give --conninfo)");
		return false;
	}
	if (!exists(c->bindir, "initdb") || !exists(c->bindir, "pg_ctl"))
	{
		bpk_fmt(err, errlen, "no initdb/pg_ctl in %s: the PostgreSQL server is not installed (or give --conninfo)", c->bindir);
		return false;
	}
	bpk_fmt(path, sizeof(path), "%s/extension", sharedir);
	c->have_ext = exists(pkglib, "chronoid.so") && exists(path, "chronoid.control");

	/* Bound the directory name: Unix socket paths are short (107 bytes). */
	if (tmp == NULL || *tmp == '\0' || strlen(tmp) > 60)
		tmp = "/tmp";
	bpk_fmt(c->dir, sizeof(c->dir), "%s/chronoid-bpk.XXXXXX", tmp);
	if (mkdtemp(c->dir) == NULL)
	{
		bpk_fmt(err, errlen, "cannot create a temporary directory in %s: %s", tmp, strerror(errno));
		c->dir[0] = '\0';
		return false;
	}
	bpk_fmt(path, sizeof(path), "%s/sock", c->dir);
	if (chmod(c->dir, 0755) != 0 || mkdir(path, 0755) != 0 ||
		(pw != NULL && (chown(c->dir, pw->pw_uid, pw->pw_gid) != 0 ||
						chown(path, pw->pw_uid, pw->pw_gid) != 0)))
	{
		bpk_fmt(err, errlen, "cannot prepare %s: %s", c->dir, strerror(errno));
		return false;
	}
	c->port = free_port(c->bindir);
	if (c->port < 0)
	{
		bpk_fmt(err, errlen, "no free port in 5490-5599 for a throwaway server");
		return false;
	}

	bpk_fmt(data, sizeof(data), "%s/data", c->dir);
	bpk_fmt(log, sizeof(log), "%s/initdb.log", c->dir);
	bpk_fmt(path, sizeof(path), "%s/initdb", c->bindir);
	{
		const char *argv[] = {path, "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", NULL};

		if (run_cmd(argv, log, true) != 0)
		{
			log_tail(log, tail, sizeof(tail));
			bpk_fmt(err, errlen, "initdb failed: %s", tail);
			return false;
		}
	}

	/*
	 * shared_buffers small enough that a few million rows' index outgrows
	 * it, as a production table outgrows its cache; fsync off: a throwaway
	 * cluster (WAL volume is the same).  checkpoint_timeout 30s: a load of
	 * a minute or two meets checkpoints, and with them the full-page
	 * images a long production run writes, instead of none at all.
	 * Autovacuum stays on (the tables turn it off for themselves).
	 */
	n = snprintf(c->conf, sizeof(c->conf),
				 "port = %d\nlisten_addresses = ''\nunix_socket_directories = '%s/sock'\n"
				 "fsync = off\nshared_buffers = 128MB\ncheckpoint_timeout = 30s\n"
				 "max_connections = 100\n",
				 c->port, c->dir);
	if (c->have_ext && n > 0 && (size_t) n < sizeof(c->conf))
		bpk_fmt(c->conf + n, sizeof(c->conf) - (size_t) n,
				 "shared_preload_libraries = 'chronoid'\nsnowflake.node = 1\n");
	if (!append_conf(c, err, errlen))
		return false;

	bpk_fmt(log, sizeof(log), "%s/server.log", c->dir);
	bpk_fmt(path, sizeof(path), "%s/pg_ctl", c->bindir);
	{
		const char *argv[] = {path, "-D", data, "-l", log, "-w", "-t", "60", "start", NULL};

		/* Set first: a half-started server is stopped too. */
		c->started = true;
		if (run_cmd(argv, NULL, true) != 0)
		{
			log_tail(log, tail, sizeof(tail));
			bpk_fmt(err, errlen, "the throwaway server did not start: %s", tail);
			return false;
		}
	}
	bpk_fmt(c->conninfo, sizeof(c->conninfo),
			 "host=%s/sock port=%d user=postgres dbname=postgres", c->dir, c->port);
	return true;
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) ftw;
	if (flag == FTW_DP)
		return rmdir(path) == 0 ? 0 : -1;
	return unlink(path) == 0 ? 0 : -1;
}

void
bpk_cluster_remove(bpk_cluster *c)
{
	char		data[300],
				pg_ctl[300];

	if (c->dir[0] == '\0')
		return;
	bpk_fmt(data, sizeof(data), "%s/data", c->dir);
	bpk_fmt(pg_ctl, sizeof(pg_ctl), "%s/pg_ctl", c->bindir);
	if (c->started && exists(data, "postmaster.pid"))
	{
		const char *fast[] = {pg_ctl, "-D", data, "-m", "fast", "-w", "-t", "30", "stop", NULL};
		const char *imm[] = {pg_ctl, "-D", data, "-m", "immediate", "-w", "stop", NULL};

		if (run_cmd(fast, NULL, true) != 0)
			run_cmd(imm, NULL, true);
	}
	c->started = false;
	nftw(c->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	c->dir[0] = '\0';
}
