/* gitcommit.c: what 'git commit' does around the commit object: its hooks
 * and its signature (git 2.39's builtin/commit.c and gpg-interface.c). */
#include "gitcommit.h"
#include "gitenv.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads an anonymous file from its start (malloc'd, NUL-terminated). */
static char *S_slurp(FILE *f, size_t *len)
{
	struct dtk_buf b = DTK_BUF_INIT;
	char chunk[4096];
	size_t n;

	rewind(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		dtk_buf_put(&b, chunk, n);
	if (len)
		*len = b.len;
	dtk_buf_cstr(&b);
	return dtk_buf_detach(&b);
}

/*
 * Runs argv (found on PATH, not through a shell, as git runs gpg) with stdin
 * from in (NULL: /dev/null), stdout into out (NULL: to stderr) and stderr
 * into err (NULL: dtk's), in dir (NULL: here), with env ("NAME=value", NULL
 * ended; may be NULL) added and the descriptor keep (-1: none) kept open.
 * Returns the exit status (128 + the signal when
 * killed), or -1 with the error set when it could not be started.
 */
static int S_spawn(const char *const argv[], FILE *in, FILE *out, FILE *err, const char *dir,
                   char *const env[], int keep)
{
	int status, errpipe[2];
	ssize_t n;
	pid_t pid;

	fflush(NULL);
	if (pipe(errpipe) < 0 || fcntl(errpipe[1], F_SETFD, FD_CLOEXEC) < 0)
		return dtk_error("cannot run %s: %s", argv[0], strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(errpipe[0]);
		close(errpipe[1]);
		return dtk_error("cannot run %s: %s", argv[0], strerror(errno));
	}
	if (pid == 0) {
		int e, null = open("/dev/null", O_RDONLY);
		close(errpipe[0]);
		if (dup2(in ? fileno(in) : null, 0) < 0 || dup2(out ? fileno(out) : 2, 1) < 0 ||
		    (err && dup2(fileno(err), 2) < 0) || (dir && chdir(dir) < 0) ||
		    (keep >= 0 && fcntl(keep, F_SETFD, 0) < 0))
			goto fail;
		for (; env && *env; env++)
			putenv(*env);
		execvp(argv[0], (char *const *)argv);
	fail:
		e = errno;
		n = write(errpipe[1], &e, sizeof(e));
		(void)n;
		_exit(127);
	}
	close(errpipe[1]);
	{
		int e = 0;
		n = read(errpipe[0], &e, sizeof(e));
		close(errpipe[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (n == (ssize_t)sizeof(e))
			return dtk_error("cannot run %s: %s", argv[0], strerror(e));
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ---- hooks ---- */

char *dtk_gitcommit_hook_path(git_repository *repo, const char *name)
{
	char *dir = dtk_gitenv_get(repo, "core.hooksPath"), *path;
	const char *wd = git_repository_workdir(repo);

	if (dir && dir[0] == '~' && dir[1] == '/' && getenv("HOME")) {
		char *home = dtk_path_join(getenv("HOME"), dir + 2);
		free(dir);
		dir = home;
	}
	if (dir && dir[0] != '/' && wd) {
		char *abs = dtk_path_join(wd, dir);
		free(dir);
		dir = abs;
	}
	if (!dir)
		dir = dtk_path_join(git_repository_commondir(repo), "hooks");
	path = dtk_path_join(dir, name);
	free(dir);
	return path;
}

int dtk_gitcommit_hook(git_repository *repo, const char *name, const char *index_file,
                       const git_signature *author, const char *arg1, const char *arg2)
{
	char *path = dtk_gitcommit_hook_path(repo, name), *cwd = getcwd(NULL, 0);
	const char *wd = git_repository_workdir(repo);
	struct dtk_buf env = DTK_BUF_INIT; /* the six variables, each NUL-ended */
	char *envp[8] = {NULL}, lock_env[96], *p;
	const char *argv[4] = {path, arg1, arg2, NULL};
	size_t i, wl = strlen(wd);
	int rc = 0, lock, off = author->when.offset, a = off < 0 ? -off : off;

	if (access(path, X_OK) < 0) {
		if (errno != ENOENT)
			fprintf(stderr,
			        "hint: The '%s' hook was ignored because it's not set as "
			        "executable.\n",
			        path);
		goto done;
	}
	dtk_buf_printf(&env, "GIT_INDEX_FILE=%s%s%cGIT_EDITOR=:%c",
	               index_file ? index_file : git_repository_path(repo),
	               index_file ? "" : "index", 0, 0);
	dtk_buf_printf(&env, "GIT_AUTHOR_NAME=%s%cGIT_AUTHOR_EMAIL=%s%c", author->name, 0,
	               author->email, 0);
	/* the author's time as git passes it: "@<seconds> +hhmm" */
	dtk_buf_printf(&env, "GIT_AUTHOR_DATE=@%lld %c%02d%02d%c", (long long)author->when.time,
	               off < 0 ? '-' : '+', a / 60, a % 60, 0);
	/* where the user is below the top, as git says it to hooks */
	dtk_buf_puts(&env, "GIT_PREFIX=");
	if (cwd && wl && !strncmp(cwd, wd, wl - 1) && (cwd[wl - 1] == '/' || !cwd[wl - 1]) &&
	    cwd[wl - 1])
		dtk_buf_printf(&env, "%s/", cwd + wl);
	for (i = 0, p = (char *)dtk_buf_cstr(&env); i < 6; p += strlen(p) + 1)
		envp[i++] = p;
	/* the base's lock handed down: a dtk the hook runs takes it from dtk
	 * (lock.h) instead of waiting for dtk, which waits for the hook */
	dtk_lock_handed(&lock, lock_env, sizeof(lock_env));
	if (lock >= 0)
		envp[6] = lock_env;
	if (!arg1)
		argv[1] = NULL;
	rc = S_spawn(argv, NULL, NULL, NULL, wd, envp, lock);
	if (rc > 0)
		rc = 1;
done:
	dtk_buf_release(&env);
	free(cwd);
	free(path);
	return rc;
}

/* ---- signing ---- */

int dtk_gitcommit_wants_sign(git_repository *repo, int sign)
{
	char *v;
	int on = 0;

	if (sign >= 0)
		return sign;
	v = dtk_gitenv_get(repo, "commit.gpgsign");
	if (v && git_config_parse_bool(&on, v) < 0) {
		dtk_error("bad boolean config value '%s' for 'commit.gpgsign'", v);
		on = -1;
	}
	free(v);
	return on;
}

/* The format's program: gpg.<format>.program, gpg.program (openpgp), or the
 * default; malloc'd. */
static char *S_program(git_repository *repo, const char *format)
{
	char key[64], *p;

	snprintf(key, sizeof(key), "gpg.%s.program", format);
	if ((p = dtk_gitenv_get(repo, key)))
		return p;
	if (!strcmp(format, "openpgp") && (p = dtk_gitenv_get(repo, "gpg.program")))
		return p;
	return dtk_xstrdup(!strcmp(format, "ssh")    ? "ssh-keygen"
	                   : !strcmp(format, "x509") ? "gpgsm"
	                                             : "gpg");
}

/* Signs with gpg or gpgsm: "PROG --status-fd=2 -bsau KEY", the buffer on
 * stdin, the signature on stdout; success needs SIG_CREATED in the status. */
static int S_sign_gpg(char **out, const char *prog, const char *key, const char *buf, size_t len)
{
	FILE *in = tmpfile(), *o = tmpfile(), *e = tmpfile();
	const char *argv[] = {prog, "--status-fd=2", "-bsau", key, NULL};
	char *sig = NULL, *status = NULL;
	size_t n = 0;
	int rc = -1;

	if (!in || !o || !e || fwrite(buf, 1, len, in) != len || fflush(in) != 0) {
		dtk_error("cannot sign the commit: %s", strerror(errno));
		goto done;
	}
	rewind(in);
	rc = S_spawn(argv, in, o, e, NULL, NULL, -1);
	if (rc < 0)
		goto done;
	sig = S_slurp(o, &n);
	status = S_slurp(e, NULL);
	if (rc != 0 || !strstr(status, "\n[GNUPG:] SIG_CREATED ") || !n) {
		struct dtk_buf msg = DTK_BUF_INIT;
		char *line, *save = NULL;
		/* gpg's own words (not its status lines) say why */
		for (line = strtok_r(status, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (strncmp(line, "[GNUPG:] ", 9))
				dtk_buf_printf(&msg, "\n%s", line);
		rc = dtk_error("%s failed to sign the data%s", prog, msg.len ? msg.ptr : "");
		dtk_buf_release(&msg);
		goto done;
	}
	*out = sig;
	sig = NULL;
	rc = 0;
done:
	free(sig);
	free(status);
	if (in)
		fclose(in);
	if (o)
		fclose(o);
	if (e)
		fclose(e);
	return rc;
}

/* Writes data to a new file named from templ (mkstemp); returns 0, or -1
 * with the error set. */
static int S_temp(char *templ, const char *data, size_t len)
{
	int fd = mkstemp(templ);
	int ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (!ok) {
		if (fd >= 0)
			unlink(templ);
		return dtk_error("cannot sign the commit: %s", strerror(e));
	}
	return 0;
}

/* Signs with ssh-keygen: "PROG -Y sign -n git -f KEYFILE [-U] FILE", the
 * signature in FILE.sig. A literal key ("key::..." or "ssh-...") is written
 * to a file and used from the agent (-U), as git does. */
static int S_sign_ssh(char **out, const char *prog, const char *key, const char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = dtk_xstrdup(tmp && *tmp ? tmp : "/tmp");
	char *data = dtk_path_join(dir, ".git_signing_buffer_tmpXXXXXX");
	char *keyfile = NULL, *sigfile = NULL, *err = NULL;
	int literal = !strncmp(key, "key::", 5) || !strncmp(key, "ssh-", 4);
	FILE *e = tmpfile();
	size_t n = 0;
	int rc = -1, made = 0;

	if (!e) {
		dtk_error("cannot sign the commit: %s", strerror(errno));
		goto done;
	}
	if (literal) {
		const char *k = !strncmp(key, "key::", 5) ? key + 5 : key;
		keyfile = dtk_path_join(dir, ".git_signing_key_tmpXXXXXX");
		if (S_temp(keyfile, k, strlen(k)) < 0) {
			free(keyfile);
			keyfile = NULL;
			goto done;
		}
	} else if (key[0] == '~' && key[1] == '/' && getenv("HOME")) {
		keyfile = dtk_path_join(getenv("HOME"), key + 2);
	}
	if (S_temp(data, buf, len) < 0)
		goto done;
	made = 1;
	{
		const char *argv[] = {prog,
		                      "-Y",
		                      "sign",
		                      "-n",
		                      "git",
		                      "-f",
		                      keyfile ? keyfile : key,
		                      literal ? "-U" : data,
		                      literal ? data : NULL,
		                      NULL};
		rc = S_spawn(argv, NULL, e, e, NULL, NULL, -1);
	}
	if (rc < 0)
		goto done;
	err = S_slurp(e, NULL);
	sigfile = dtk_xstrdup(data);
	sigfile = dtk_xrealloc(sigfile, strlen(data) + 5);
	strcat(sigfile, ".sig");
	if (rc != 0 || dtk_file_read(out, &n, sigfile, 1u << 20) < 0) {
		size_t l = strlen(err);
		while (l && err[l - 1] == '\n')
			err[--l] = '\0';
		rc = dtk_error("%s failed to sign the data%s%s%s", prog, *err ? ":\n" : "", err,
		               strstr(err, "usage:") ? "\nssh-keygen -Y sign is needed for ssh "
		                                       "signing (available in openssh version "
		                                       "8.2p1+)"
		                                     : "");
		goto done;
	}
	rc = 0;
done:
	if (sigfile)
		unlink(sigfile);
	if (made)
		unlink(data);
	if (literal && keyfile)
		unlink(keyfile);
	if (e)
		fclose(e);
	free(err);
	free(sigfile);
	free(keyfile);
	free(data);
	free(dir);
	return rc;
}

/* Runs gpg.ssh.defaultKeyCommand as git does (split at blanks, no shell);
 * returns the first line of its output when it is a literal key ("key::..."
 * or "ssh-..."), malloc'd, else NULL (a warning says why). */
static char *S_default_ssh_key(git_repository *repo)
{
	char *cmd = dtk_gitenv_get(repo, "gpg.ssh.defaultKeyCommand"), *text = NULL, *nl,
	     *key = NULL;
	const char *argv[64];
	FILE *o = NULL;
	size_t n = 0;
	char *w, *save = NULL;
	int rc;

	if (!cmd)
		return NULL;
	for (w = strtok_r(cmd, " \t", &save); w && n < 63; w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	argv[n] = NULL;
	if (!n || !(o = tmpfile()))
		goto done;
	rc = S_spawn(argv, NULL, o, NULL, NULL, NULL, -1);
	text = S_slurp(o, NULL);
	if ((nl = strchr(text, '\n')))
		*nl = '\0';
	if (rc == 0 && (!strncmp(text, "key::", 5) || !strncmp(text, "ssh-", 4)))
		key = dtk_xstrdup(text);
	else
		fprintf(stderr,
		        "warning: gpg.ssh.defaultKeyCommand succeeded but returned no keys: %s\n",
		        text);
done:
	if (o)
		fclose(o);
	free(text);
	free(cmd);
	return key;
}

int dtk_gitcommit_sign(char **out, git_repository *repo, const char *buf, size_t len,
                       const char *keyid, const git_signature *committer)
{
	char *format = dtk_gitenv_get(repo, "gpg.format"), *key = NULL, *prog = NULL;
	const char *fmt = format ? format : "openpgp";
	int rc = -1;

	*out = NULL;
	if (strcmp(fmt, "openpgp") && strcmp(fmt, "x509") && strcmp(fmt, "ssh")) {
		dtk_error("invalid value for 'gpg.format': '%s' (openpgp, x509 or ssh)", fmt);
		goto done;
	}
	key = keyid && *keyid ? dtk_xstrdup(keyid) : dtk_gitenv_get(repo, "user.signingkey");
	if (!key && !strcmp(fmt, "ssh"))
		key = S_default_ssh_key(repo);
	if (!key && !strcmp(fmt, "ssh")) {
		dtk_error("either user.signingkey or gpg.ssh.defaultKeyCommand needs to be "
		          "configured");
		goto done;
	}
	if (!key) {
		struct dtk_buf b = DTK_BUF_INIT;
		dtk_buf_printf(&b, "%s <%s>", committer->name, committer->email);
		key = dtk_buf_detach(&b);
	}
	prog = S_program(repo, fmt);
	rc = !strcmp(fmt, "ssh") ? S_sign_ssh(out, prog, key, buf, len)
	                         : S_sign_gpg(out, prog, key, buf, len);
	if (rc == 0) {
		/* as git: no CR in the signature (gpg on Windows writes CRLF) */
		char *s = *out, *d = *out;
		for (; *s; s++)
			if (!(s[0] == '\r' && s[1] == '\n'))
				*d++ = *s;
		/* libgit2 ends the header's last line itself */
		while (d > *out && d[-1] == '\n')
			d--;
		*d = '\0';
	}
done:
	free(format);
	free(key);
	free(prog);
	return rc;
}
