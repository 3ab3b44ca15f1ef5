/* gitenv.c: the repository, its configuration and the commit's identities,
 * resolved as git resolves them (libgit2 1.5 reads few of git's variables). */
#define _GNU_SOURCE /* memfd_create */
#include "gitenv.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *S_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* ---- the command line's configuration (git -c, GIT_CONFIG_COUNT) ---- */

/* Appends s[0, len) as a quoted string of config file text. */
static void S_quote(struct dtk_buf *b, const char *s, size_t len)
{
	size_t i;

	dtk_buf_putc(b, '"');
	for (i = 0; i < len; i++) {
		if (strchr("\"\\\n\t", s[i]))
			dtk_buf_putc(b, '\\');
		dtk_buf_putc(b, s[i] == '\n' ? 'n' : s[i] == '\t' ? 't' : s[i]);
	}
	dtk_buf_putc(b, '"');
}

/* Appends key = value as config file text ("[section \"sub\"]\n\tname = v"). */
static int S_put_pair(struct dtk_buf *b, const char *key, size_t klen, const char *value)
{
	const char *dot = memchr(key, '.', klen), *last = key + klen;

	while (last > key && last[-1] != '.')
		last--;
	if (!dot || last == key + klen || last - 1 == key)
		return dtk_error("bogus config key '%.*s' in the environment (git -c): it needs a "
		                 "section and a name",
		                 (int)klen, key);
	dtk_buf_printf(b, "[%.*s", (int)(dot - key), key);
	if (dot + 1 < last) {
		dtk_buf_putc(b, ' ');
		S_quote(b, dot + 1, (size_t)(last - 1 - (dot + 1)));
	}
	dtk_buf_printf(b, "]\n\t%.*s", (int)(key + klen - last), last);
	if (value) { /* else "git -c name": true */
		dtk_buf_puts(b, " = ");
		S_quote(b, value, strlen(value));
	}
	dtk_buf_putc(b, '\n');
	return 0;
}

/* Reads one sq-quoted word of GIT_CONFIG_PARAMETERS at *p ('a'\''b' is
 * a'b) into w; returns 0, or -1 when *p does not start one. */
static int S_sq_word(const char **p, struct dtk_buf *w)
{
	const char *s = *p;
	if (*s != '\'')
		return -1;
	while (*s == '\'') {
		for (s++; *s && *s != '\''; s++)
			dtk_buf_putc(w, *s);
		if (*s != '\'')
			return -1;
		s++;
		if (s[0] == '\\' && s[1] && s[2] == '\'') {
			dtk_buf_putc(w, s[1]);
			s += 2;
		}
	}
	*p = s;
	return 0;
}

/* Appends the pairs of GIT_CONFIG_PARAMETERS ('key'='value' or 'key=value',
 * space separated: what 'git -c' passes to the programs it runs). */
static int S_parameters(struct dtk_buf *b, const char *s)
{
	int rc = 0;

	while (rc == 0 && *s) {
		struct dtk_buf k = DTK_BUF_INIT, v = DTK_BUF_INIT;
		const char *eq;
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (S_sq_word(&s, &k) < 0) {
			rc = dtk_error("bogus format in GIT_CONFIG_PARAMETERS");
		} else if (*s == '=') {
			s++;
			if (*s == '\'' ? S_sq_word(&s, &v) < 0 : 0)
				rc = dtk_error("bogus format in GIT_CONFIG_PARAMETERS");
			else
				rc = S_put_pair(b, dtk_buf_cstr(&k), k.len, dtk_buf_cstr(&v));
		} else if ((eq = strchr(dtk_buf_cstr(&k), '='))) {
			rc = S_put_pair(b, k.ptr, (size_t)(eq - k.ptr), eq + 1);
		} else {
			rc = S_put_pair(b, dtk_buf_cstr(&k), k.len, NULL);
		}
		dtk_buf_release(&k);
		dtk_buf_release(&v);
	}
	return rc;
}

/* Appends the pairs GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>. */
static int S_count(struct dtk_buf *b, const char *count)
{
	char *end, name[64];
	long n = strtol(count, &end, 10), i;

	if (*end || n < 0)
		return dtk_error("bogus count in GIT_CONFIG_COUNT");
	for (i = 0; i < n; i++) {
		const char *key, *value;
		snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%ld", i);
		if (!(key = S_env(name)))
			return dtk_error("missing config key %s", name);
		snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%ld", i);
		if (!(value = getenv(name)))
			return dtk_error("missing config value %s", name);
		if (S_put_pair(b, key, strlen(key), value) < 0)
			return -1;
	}
	return 0;
}

/* Adds the command line's configuration to cfg at the highest level, from a
 * memory file (libgit2 1.5 reads configuration only from files). */
static int S_add_command_line(git_config *cfg, git_repository *repo)
{
	const char *params = S_env("GIT_CONFIG_PARAMETERS"), *count = S_env("GIT_CONFIG_COUNT");
	struct dtk_buf text = DTK_BUF_INIT;
	char path[64];
	int fd = -1, rc = -1;

	if (!params && !count)
		return 0;
	if ((params && S_parameters(&text, params) < 0) || (count && S_count(&text, count) < 0))
		goto done;
	fd = memfd_create("git-c", MFD_CLOEXEC);
	if (fd < 0 || (text.len && write(fd, text.ptr, text.len) != (ssize_t)text.len)) {
		dtk_error("cannot read the command line's configuration: %s", strerror(errno));
		goto done;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_APP, repo, 1) < 0) {
		dtk_gitlib_error("cannot read the command line's configuration");
		goto done;
	}
	rc = 0;
	/* kept open for the life of the process: libgit2 reads the file again
	 * by its path whenever it refreshes the configuration, and a closed
	 * descriptor's number is soon another file's (an index.lock) */
	fd = -1;
done:
	if (fd >= 0)
		close(fd);
	dtk_buf_release(&text);
	return rc;
}

/*
 * Loads repo's configuration as git does and makes it the repository's:
 * system (GIT_CONFIG_SYSTEM, or /etc/gitconfig; none with GIT_CONFIG_NOSYSTEM),
 * global (GIT_CONFIG_GLOBAL, or $XDG_CONFIG_HOME/git/config and ~/.gitconfig),
 * the repository's, then the command line's (GIT_CONFIG_PARAMETERS,
 * GIT_CONFIG_COUNT). include and includeIf are libgit2's.
 */
static int S_config(git_repository *repo)
{
	static const git_config_level_t levels[] = {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
	                                            GIT_CONFIG_LEVEL_GLOBAL,
	                                            GIT_CONFIG_LEVEL_LOCAL};
	const char *sys = getenv("GIT_CONFIG_SYSTEM"), *global = getenv("GIT_CONFIG_GLOBAL");
	const char *nosys = S_env("GIT_CONFIG_NOSYSTEM"), *home = S_env("HOME");
	const char *xdg = S_env("XDG_CONFIG_HOME");
	git_config *cfg = NULL;
	char *files[4] = {NULL, NULL, NULL, NULL}; /* at levels[i]; NULL: none */
	int i, off = 0, rc = -1;

	if (nosys && git_config_parse_bool(&off, nosys) < 0)
		off = 0;
	if (!off)
		files[0] = dtk_xstrdup(sys ? sys : "/etc/gitconfig");
	if (global)
		files[2] = dtk_xstrdup(global);
	else if (home || xdg) {
		files[1] = xdg ? dtk_path_join(xdg, "git/config")
		               : dtk_path_join(home, ".config/git/config");
		files[2] = home ? dtk_path_join(home, ".gitconfig") : NULL;
	}
	files[3] = dtk_path_join(git_repository_commondir(repo), "config");
	if (git_config_new(&cfg) < 0) {
		dtk_gitlib_error("cannot read the git configuration");
		goto done;
	}
	/* missing files are empty; the repository's own is added even when
	 * missing: dtk setup-git writes it */
	for (i = 0; i < 4; i++)
		if (files[i] && (i == 3 || access(files[i], F_OK) == 0) &&
		    git_config_add_file_ondisk(cfg, files[i], levels[i], repo, 0) < 0) {
			dtk_gitlib_error(i == 3 ? "cannot read the repository's configuration"
			                        : "cannot read the git configuration");
			goto done;
		}
	if (S_add_command_line(cfg, repo) < 0)
		goto done;
	git_repository_set_config(repo, cfg);
	rc = 0;
done:
	git_config_free(cfg);
	for (i = 0; i < 4; i++)
		free(files[i]);
	return rc;
}

char *dtk_gitenv_get(git_repository *repo, const char *key)
{
	git_config *cfg = NULL;
	git_buf buf = GIT_BUF_INIT;
	char *out = NULL;

	if (git_repository_config(&cfg, repo) == 0 &&
	    git_config_get_string_buf(&buf, cfg, key) == 0)
		out = dtk_xstrndup(buf.ptr, buf.size);
	git_buf_dispose(&buf);
	git_config_free(cfg);
	return out;
}

/* Makes dir absolute (relative to base when not NULL, else to the current
 * directory) and real; malloc'd, or NULL with the error set. */
static char *S_real(const char *dir, const char *base, const char *what)
{
	char *joined = dir[0] == '/' || !base ? dtk_xstrdup(dir) : dtk_path_join(base, dir);
	char *out = realpath(joined, NULL);
	if (!out)
		dtk_error("cannot use %s %s: %s", what, joined, strerror(errno));
	free(joined);
	return out;
}

/* The work tree of a repository named by GIT_DIR, as git decides it:
 * GIT_WORK_TREE, else core.worktree (relative to the git directory), else
 * none for a bare repository, else the current directory. */
static int S_env_workdir(git_repository *repo)
{
	const char *wt = S_env("GIT_WORK_TREE");
	char *cfg_wt = wt ? NULL : dtk_gitenv_get(repo, "core.worktree"), *dir = NULL;
	const char *cur;
	int is_bare = git_repository_is_bare(repo), rc = -1; /* core.bare, read by libgit2 */

	if (wt) {
		dir = S_real(wt, NULL, "GIT_WORK_TREE");
	} else if (cfg_wt && !is_bare) {
		dir = S_real(cfg_wt, git_repository_path(repo), "core.worktree");
	} else if (is_bare) {
		rc = dtk_error("%s is a bare repository (core.bare)%s; set GIT_WORK_TREE",
		               git_repository_path(repo),
		               cfg_wt ? ": core.bare and core.worktree do not make sense" : "");
		goto done;
	} else {
		dir = getcwd(NULL, 0);
		if (!dir)
			dtk_error("cannot read the current directory: %s", strerror(errno));
	}
	if (!dir)
		goto done;
	/* libgit2 1.5 leaks when told the work tree it already has */
	cur = git_repository_workdir(repo);
	if (cur && !strncmp(cur, dir, strlen(dir)) && !strcmp(cur + strlen(dir), "/"))
		rc = 0;
	else
		rc = git_repository_set_workdir(repo, dir, 0) < 0
		             ? dtk_gitlib_error("cannot use the work tree")
		             : 0;
done:
	free(dir);
	free(cfg_wt);
	return rc;
}

/* Sets the error as git says it when the nearest .git above root, or the
 * directory holding it, belongs to another user: libgit2 refuses such a
 * repository too (GIT_EOWNER, or GIT_ENOTFOUND in 1.5 when no
 * safe.directory is set at all). Returns 1 when it did, else 0. */
static int S_dubious(const char *root)
{
	char *dir = realpath(root, NULL), *dot, *slash;
	struct stat st, top;
	int rc = 0, found = 0;

	while (dir && !found) {
		dot = dtk_path_join(dir, ".git");
		found = lstat(dot, &st) == 0;
		free(dot);
		if (found && stat(dir, &top) == 0 &&
		    (st.st_uid != geteuid() || top.st_uid != geteuid())) {
			dtk_error("detected dubious ownership in repository at '%s' (another user "
			          "owns it; git refuses it too); if you trust it, run: git config "
			          "--global --add safe.directory %s",
			          dir, dir);
			rc = 1;
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return rc;
}

int dtk_gitenv_open(git_repository **out, const char *root)
{
	const char *gitdir = S_env("GIT_DIR"), *wt = S_env("GIT_WORK_TREE");
	git_repository *repo = NULL;
	int rc = -1;

	*out = NULL;
	if (gitdir) {
		char *dir = S_real(gitdir, NULL, "GIT_DIR");
		if (!dir)
			return -1;
		rc = git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
		if (rc < 0)
			dtk_error("GIT_DIR=%s is not a git repository", gitdir);
		free(dir);
	} else {
		rc = git_repository_open_ext(&repo, root, 0, getenv("GIT_CEILING_DIRECTORIES"));
		if (rc < 0 && !S_dubious(root))
			dtk_error("%s is not inside a git work tree", root);
	}
	if (rc < 0)
		goto done;
	rc = -1;
	if (S_config(repo) < 0)
		goto done;
	if (gitdir ? S_env_workdir(repo) < 0 : wt && S_env_workdir(repo) < 0)
		goto done;
	rc = 0;
done:
	if (rc < 0)
		git_repository_free(repo);
	else
		*out = repo;
	return rc;
}

/* ---- identities ---- */

/* Parses a date as git reads GIT_AUTHOR_DATE: its own "<seconds> +hhmm" (with
 * or without '@'), ISO 8601 ("2005-04-07T22:13:13", a space for the T, an
 * optional fraction and zone: Z, +hh:mm, +hhmm; local time without) or RFC 2822
 * ("Thu, 07 Apr 2005 22:13:13 +0200"; strptime, in the C locale dtk runs in).
 * Returns 0, or -1. */
static int S_parse_date(const char *s, git_time_t *t, int *offset)
{
	static const char *const forms[] = {"%Y-%m-%dT%T", "%Y-%m-%d %T", "%a, %d %b %Y %T",
	                                    "%d %b %Y %T"};
	const char *end = NULL;
	struct tm tm;
	long long secs;
	char sign = 0;
	int n = 0, hh = 0, mm = 0;
	size_t i;

	if (*s == '@')
		s++;
	if (sscanf(s, "%lld %c%2d%2d%n", &secs, &sign, &hh, &mm, &n) == 4 && !s[n] &&
	    (sign == '+' || sign == '-') && strlen(s) > 10) {
		*t = (git_time_t)secs;
		*offset = (sign == '-' ? -1 : 1) * (hh * 60 + mm);
		return 0;
	}
	for (i = 0; i < sizeof(forms) / sizeof(*forms) && !end; i++) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, forms[i], &tm);
	}
	if (end && *end == '.')
		for (end++; isdigit((unsigned char)*end); end++)
			;
	if (end && !*end) { /* no zone: local time */
		tm.tm_isdst = -1;
		*t = (git_time_t)mktime(&tm);
		*offset = (int)(tm.tm_gmtoff / 60);
		return 0;
	}
	if (!end || !(end = strptime(end, " %z", &tm)) || *end)
		return -1;
	*offset = (int)(tm.tm_gmtoff / 60);
	*t = (git_time_t)timegm(&tm) - (git_time_t)*offset * 60;
	return 0;
}

/* Makes one identity: who is "AUTHOR" or "COMMITTER", role "author" or
 * "committer"; name and email (not NULL) replace the looked-up ones. */
static int S_ident(git_signature **out, git_repository *repo, const char *who, const char *role,
                   const char *name_arg, const char *email_arg)
{
	static const char *const fields[][2] = {{"NAME", "name"}, {"EMAIL", "email"}};
	const char *args[2] = {name_arg, email_arg}, *env;
	char var[32], key[32], *v[2] = {NULL, NULL}; /* name, email */
	git_time_t t;
	int i, offset = 0, rc = -1;

	/* each field: the argument, GIT_<WHO>_<FIELD>, <role>.<field>, user.<field> */
	for (i = 0; i < 2; i++) {
		snprintf(var, sizeof(var), "GIT_%s_%s", who, fields[i][0]);
		snprintf(key, sizeof(key), "%s.%s", role, fields[i][1]);
		if (args[i] || (env = getenv(var)))
			v[i] = dtk_xstrdup(args[i] ? args[i] : env);
		else if (!(v[i] = dtk_gitenv_get(repo, key)))
			v[i] = dtk_gitenv_get(repo, i ? "user.email" : "user.name");
	}
	if (!v[1] && (env = S_env("EMAIL")))
		v[1] = dtk_xstrdup(env);
	if (!v[0] || !v[1]) {
		dtk_error("no %s: set user.name and user.email (git config), or GIT_%s_NAME and "
		          "GIT_%s_EMAIL%s",
		          role, who, who, *who == 'A' ? ", or pass --author 'Name <email>'" : "");
		goto done;
	}
	if (!*v[0]) {
		dtk_error("empty ident name (for <%s>) not allowed", v[1]);
		goto done;
	}
	snprintf(var, sizeof(var), "GIT_%s_DATE", who);
	if ((env = S_env(var))) {
		if (S_parse_date(env, &t, &offset) < 0) {
			dtk_error("invalid date format: %s (%s)", env, var);
			goto done;
		}
		rc = git_signature_new(out, v[0], v[1], t, offset);
	} else {
		rc = git_signature_now(out, v[0], v[1]);
	}
	if (rc < 0)
		dtk_gitlib_error(*who == 'A' ? "invalid author" : "invalid committer");
done:
	free(v[0]);
	free(v[1]);
	return rc < 0 ? -1 : 0;
}

int dtk_gitenv_idents(git_signature **author, git_signature **committer, git_repository *repo,
                      const char *author_arg)
{
	git_signature *arg = NULL; /* --author, parsed (and trimmed) by libgit2 */
	int rc = -1;

	*author = *committer = NULL;
	if (author_arg &&
	    (git_signature_from_buffer(&arg, author_arg) < 0 || !*arg->name || !*arg->email)) {
		dtk_error("--author must read 'Name <email>', not '%s'", author_arg);
		goto done;
	}
	if (S_ident(author, repo, "AUTHOR", "author", arg ? arg->name : NULL,
	            arg ? arg->email : NULL) < 0 ||
	    S_ident(committer, repo, "COMMITTER", "committer", NULL, NULL) < 0)
		goto done;
	rc = 0;
done:
	if (rc < 0) {
		git_signature_free(*author);
		git_signature_free(*committer);
		*author = *committer = NULL;
	}
	git_signature_free(arg);
	return rc;
}
