/* test_safety.c: the dtk binary at the edges: output that cannot be written,
 * special and linked files, modes, limits, control characters. */
#include "support.h"

#include "dtk/dtk.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes dir a git repository with its files committed. */
static void S_commit(const char *dir)
{
	assert_int_equal(t_sh(dir, "export GIT_CONFIG_NOSYSTEM=1 HOME=\"$PWD\" GIT_AUTHOR_NAME=t "
	                           "GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t "
	                           "GIT_COMMITTER_EMAIL=t@example.org && "
	                           "{ [ -d .git ] || git init -q; } && git add -A && "
	                           "git commit -q -m base"),
	                 0);
}

/* Returns a file's bytes (malloc'd) and fails the test when it is absent. */
static char *S_read(const char *dir, const char *rel, size_t *len)
{
	char *s = t_read(dir, rel, len);
	assert_non_null(s);
	return s;
}

/* A failed write or flush of standard output is exit 2 with a message, for
 * every command (the dispatcher checks it once). */
static void test_stdout_write_error(void **state)
{
	static const char *const cmds[] = {
	        "list --format json", "list",
	        "show alpha",         "show alpha-001 --format json",
	        "next-id alpha",      "log",
	        "log --format json",  "crystallize --plan",
	        "reindex --stdout",   "--version",
	        "help list",          "--help",
	};
	char *dir = t_base();
	size_t i;
	(void)state;
	S_commit(dir);
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		int rc = t_sh(dir, "'%s' %s >/dev/full 2>err", DTK_BIN, cmds[i]);
		char *err = S_read(dir, "err", NULL);
		if (rc != 2 || !strstr(err, "dtk: error: cannot write to standard output"))
			fail_msg("dtk %s >/dev/full: exit %d, %s", cmds[i], rc, err);
		free(err);
		/* and it is the output that failed: to /dev/null all is well */
		assert_int_equal(t_sh(dir, "'%s' %s >/dev/null 2>&1", DTK_BIN, cmds[i]), 0);
	}
	t_done(dir);
}

/* A write command whose report cannot be printed after it wrote the files
 * exits 3, never 2 ("nothing was written"): the files are written, the
 * counter counted once; --dry-run, which writes nothing, exits 2. */
static void test_stdout_error_after_writing(void **state)
{
	static const char *const cmds[] = {
	        "use alpha-001",
	        "cite alpha-001 --format json",
	        "add beta --title T --claim C --source paper-a --confidence low",
	        "add-source paper-z --title Z",
	};
	char *dir = t_base(), *text;
	size_t i;
	int rc;
	(void)state;
	S_commit(dir);
	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		rc = t_sh(dir, "'%s' %s >/dev/full 2>err", DTK_BIN, cmds[i]);
		text = S_read(dir, "err", NULL);
		if (rc != 3 || !strstr(text, "dtk: the files were written, but not the report"))
			fail_msg("dtk %s >/dev/full: exit %d, %s", cmds[i], rc, text);
		free(text);
	}
	text = S_read(dir, "insights/alpha.yaml", NULL);
	assert_non_null(strstr(text, "    used: 3\n")); /* the node file untouched */
	free(text);
	assert_int_equal(t_sh(dir, "'%s' show alpha-001 --format json | grep -q '\"used\": 4,'",
	                      DTK_BIN),
	                 0); /* 3, counted once */
	assert_int_equal(t_sh(dir, "'%s' check -q", DTK_BIN), 0);
	assert_int_equal(t_sh(dir, "'%s' use alpha-001 --dry-run >/dev/full 2>/dev/null", DTK_BIN),
	                 2);
	t_done(dir);
}

static void test_check_unknown_format(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	t_dtk(&r, dir, NULL, "check", "--format", "xml", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dtk check: error: --format must be text or github, not 'xml'\n"
	                           "see 'dtk check --help'\n");
	t_run_free(&r);
	t_done(dir);
}

/* Ids need no numbers: after an entry numbered 999999999 (the highest an
 * id of old may have), next-id and add still give fresh ids; add's is the
 * entry's birth hash, the same for the same entry in another base, another
 * for another entry; a suffix that is not a fresh one is refused. */
static void test_fresh_ids_after_the_last_number(void **state)
{
	char *dir = t_base(), *other = t_base();
	struct t_run r, s;
	(void)state;
	assert_int_equal(t_sh(dir, "sed -i 's/id: alpha-003/id: alpha-999999999/' "
	                           "insights/alpha.yaml"),
	                 0);
	t_dtk(&r, dir, NULL, "next-id", "alpha", NULL);
	assert_int_equal(r.status, 0);
	assert_int_equal(strlen(r.out), strlen("alpha-k3x9q2m\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "add", "alpha", "--title", "T", "--claim", "C", "--source", "paper-a",
	      "--confidence", "low", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "alpha-v8wms80\n");
	t_dtk(&s, other, NULL, "add", "alpha", "--title", "T", "--claim", "C", "--source",
	      "paper-a", "--confidence", "low", "--created", "2020-01-01", NULL);
	assert_string_equal(s.out, r.out);
	t_run_free(&s);
	/* the same entry again in one node (the duplicate check, which refuses
	 * it, off): the next nonce */
	t_dtk(&s, dir, "DTK_NO_DUPLICATE_CHECK=1", "add", "alpha", "--title", "T", "--claim", "C",
	      "--source", "paper-a", "--confidence", "low", NULL);
	assert_int_equal(s.status, 0);
	assert_string_not_equal(s.out, r.out);
	t_run_free(&s);
	t_dtk(&s, other, NULL, "add", "alpha", "--title", "T2", "--claim", "C", "--source",
	      "paper-a", "--confidence", "low", NULL);
	assert_string_not_equal(s.out, r.out);
	t_run_free(&s);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	/* all letters (a word) or all digits beyond nine: not an id */
	assert_int_equal(t_sh(other, "sed -i 's/id: alpha-003/id: alpha-scatter/' "
	                             "insights/alpha.yaml"),
	                 0);
	t_dtk(&r, other, NULL, "check", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "entry id must be 'alpha-' and three to nine digits or a "
	                              "fresh suffix"));
	t_run_free(&r);
	t_done(dir);
	t_done(other);
}

/* A new file gets 0666 less the umask; a replaced one keeps its mode. */
static void test_new_files_follow_the_umask(void **state)
{
	char *dir = t_base(), path[4096];
	struct stat st;
	(void)state;
	snprintf(path, sizeof(path), "%s/INDEX.md", dir);
	assert_int_equal(t_sh(dir, "rm INDEX.md && umask 027 && '%s' reindex -q", DTK_BIN), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(t_sh(dir,
	                      "chmod 604 INDEX.md && echo stale >>INDEX.md && umask 077 && "
	                      "'%s' reindex -q",
	                      DTK_BIN),
	                 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	t_done(dir);
}

/* Invalid records at HEAD are errors for dtk log, not an empty history. */
static void test_log_reports_invalid_records(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "sed -i 's/new_entries: 4/new_entries: four/' "
	                           "insights/_crystallizations.yaml"),
	                 0);
	S_commit(dir);
	t_dtk(&r, dir, NULL, "log", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "insights/_crystallizations.yaml:2:16: error: "));
	assert_non_null(
	        strstr(r.err, "dtk log: error: the records at HEAD are invalid (1 error)\n"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "log", "--format", "json", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	t_run_free(&r);
	t_done(dir);
}

/* INDEX.md must be a regular file or absent: a link to a secret is neither
 * shown in check's diff nor replaced by reindex, a FIFO does not hang them,
 * and each says what failed. */
static void test_index_must_be_a_regular_file(void **state)
{
	char *dir = t_base(), *secret_dir = t_mkdtemp(), target[4096], *got, *before;
	const char *cmds[] = {"check", "reindex"};
	struct t_run r;
	size_t i, n;
	(void)state;
	t_write_str(secret_dir, "secret", "TOP-SECRET-LINE\n");
	snprintf(target, sizeof(target), "%s/secret", secret_dir);
	assert_int_equal(t_sh(dir, "rm INDEX.md && ln -s '%s' INDEX.md", target), 0);
	for (i = 0; i < 2; i++) {
		t_dtk(&r, dir, NULL, cmds[i], NULL);
		assert_int_equal(r.status, 2);
		assert_null(strstr(r.out, "TOP-SECRET"));
		assert_null(strstr(r.err, "TOP-SECRET"));
		/* the path as the user sees it, relative to where dtk runs */
		assert_non_null(strstr(r.err,
		                       ": error: cannot read INDEX.md: it is a symbolic link "
		                       "(it must be a regular file)\n"));
		t_run_free(&r);
	}
	assert_int_equal(
	        t_sh(dir, "test -L INDEX.md && test \"$(readlink INDEX.md)\" = '%s'", target), 0);
	got = S_read(secret_dir, "secret", &n);
	assert_string_equal(got, "TOP-SECRET-LINE\n");
	free(got);
	/* a FIFO: refused at once (timeout: a hang fails the test) */
	assert_int_equal(t_sh(dir, "rm INDEX.md && mkfifo INDEX.md"), 0);
	for (i = 0; i < 2; i++) {
		int rc = t_sh(dir,
		              "t=; command -v timeout >/dev/null && t='timeout 20'; "
		              "$t '%s' %s >out 2>err",
		              DTK_BIN, cmds[i]);
		got = S_read(dir, "err", NULL);
		if (rc != 2 || !strstr(got, "INDEX.md: it is a special file (it must be a "
		                            "regular file)\n"))
			fail_msg("dtk %s on a FIFO: exit %d, %s", cmds[i], rc, got);
		free(got);
	}
	assert_int_equal(t_sh(dir, "test -p INDEX.md"), 0);
	/* a regular file is still compared and replaced */
	assert_int_equal(t_sh(dir, "rm INDEX.md out err && echo stale >INDEX.md"), 0);
	before = S_read(dir, "INDEX.md", NULL);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 1);
	t_run_free(&r);
	got = S_read(dir, "INDEX.md", NULL);
	assert_string_equal(got, before); /* check wrote nothing */
	free(got);
	free(before);
	t_done(secret_dir);
	t_done(dir);
}

/* The whole path of a file of the base must stay inside it: insights/ a
 * link to a directory outside is refused; one inside is followed. */
static void test_insights_link_containment(void **state)
{
	char *dir = t_base(), *out = t_mkdtemp(), *before;
	struct t_run r;
	(void)state;
	before = S_read(dir, "INDEX.md", NULL);
	assert_int_equal(
	        t_sh(dir, "mv insights '%s/insights' && ln -s '%s/insights' insights", out, out),
	        0);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "insights/_domain.yaml:1:1: error: is outside the "
	                              "repository (a directory on its path is a symbolic link "
	                              "leading out)\n"));
	assert_non_null(strstr(r.err, "insights/alpha.yaml:1:1: error: is outside the "));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "reindex", NULL);
	assert_int_equal(r.status, 2);
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "alpha", NULL);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	t_run_free(&r);
	/* inside the base, the same link is followed */
	assert_int_equal(t_sh(dir,
	                      "rm insights && mkdir data && mv '%s/insights' data/ && "
	                      "ln -s data/insights insights",
	                      out),
	                 0);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 0);
	t_run_free(&r);
	{
		char *after = S_read(dir, "INDEX.md", NULL);
		assert_string_equal(after, before);
		free(after);
	}
	free(before);
	t_done(out);
	t_done(dir);
}

#define ATTR_PAGES "/index/*.md merge=dtk-index\n"
#define ATTR_INS "/insights/*.yaml merge=dtk-insights\n" ATTR_PAGES
#define ATTR "/INDEX.md merge=dtk-index\n" ATTR_INS

/* Runs dtk setup-git in dir; returns its exit status (output in out, err). */
static int S_setup_git(const char *dir)
{
	return t_sh(dir, "HOME=\"$PWD\" GIT_CONFIG_NOSYSTEM=1 '%s' setup-git >out 2>err", DTK_BIN);
}

/* Fails unless dir/.gitattributes is old (len bytes) with add appended. */
static void S_expect_attributes(const char *dir, const char *old, size_t len, const char *add)
{
	size_t n;
	char *now = S_read(dir, ".gitattributes", &n);
	assert_int_equal(n, len + strlen(add));
	assert_memory_equal(now, old, len);
	assert_memory_equal(now + len, add, strlen(add));
	free(now);
}

/* setup-git appends its line and keeps every other byte: a large file of LFS
 * rules, one without its last newline, one with CRLF that has the line; a
 * file it cannot read is an error and nothing is written. */
static void test_setup_git_attributes(void **state)
{
	char *dir = t_base(), *old;
	size_t len;
	(void)state;
	S_commit(dir);
	/* 2 MB of LFS rules, over any small read limit */
	assert_int_equal(t_sh(dir,
	                      "awk 'BEGIN { for (i = 0; i < 40000; i++) print \"data/f\" i "
	                      "\".bin filter=lfs diff=lfs merge=lfs -text\" }' >.gitattributes"),
	                 0);
	old = S_read(dir, ".gitattributes", &len);
	assert_true(len > (1u << 20) + (1u << 19));
	assert_int_equal(S_setup_git(dir), 0);
	S_expect_attributes(dir, old, len, ATTR);
	free(old);
	old = S_read(dir, ".gitattributes", &len);
	assert_int_equal(S_setup_git(dir), 0); /* again: nothing to add */
	S_expect_attributes(dir, old, len, "");
	free(old);

	t_write_str(dir, ".gitattributes", "*.bin binary");
	assert_int_equal(S_setup_git(dir), 0);
	S_expect_attributes(dir, "*.bin binary", 12, "\n" ATTR);
	t_write_str(dir, ".gitattributes", "*.bin binary\r\n/INDEX.md merge=dtk-index\r\n");
	assert_int_equal(S_setup_git(dir), 0);
	S_expect_attributes(dir, "*.bin binary\r\n/INDEX.md merge=dtk-index\r\n", 41, ATTR_INS);
	t_write_str(dir, ".gitattributes", "/INDEX.md merge=dtk-index");
	assert_int_equal(S_setup_git(dir), 0);
	S_expect_attributes(dir, "/INDEX.md merge=dtk-index", 25, "\n" ATTR_INS);
	/* every line there (CRLF, the last without its newline): nothing written */
	t_write_str(dir, ".gitattributes",
	            "/insights/*.yaml merge=dtk-insights\r\n/index/*.md merge=dtk-index\r\n"
	            "*.bin binary\n/INDEX.md merge=dtk-index");
	assert_int_equal(S_setup_git(dir), 0);
	S_expect_attributes(dir,
	                    "/insights/*.yaml merge=dtk-insights\r\n/index/*.md merge=dtk-index\r\n"
	                    "*.bin binary\n/INDEX.md merge=dtk-index",
	                    104, "");
	assert_int_equal(t_sh(dir, "test \"$(git config merge.dtk-insights.driver)\" = "
	                           "\"$(git config merge.dtk-index.driver)\""),
	                 0);

	/* cannot be read: exit 2, not even git's configuration written */
	assert_int_equal(t_sh(dir, "git config --unset-all merge.dtk-index.driver; "
	                           "git config --unset-all merge.dtk-index.name; "
	                           "rm .gitattributes && mkdir .gitattributes"),
	                 0);
	assert_int_equal(S_setup_git(dir), 2);
	assert_int_equal(t_sh(dir, "grep -q 'dtk setup-git: error: cannot read .*gitattributes: "
	                           "Is a directory' err"),
	                 0);
	assert_int_equal(t_sh(dir, "test -d .gitattributes && ! git config merge.dtk-index.driver"),
	                 0);
	assert_int_equal(t_sh(dir, "rmdir .gitattributes && echo '*.c diff' >rules && "
	                           "ln -s rules .gitattributes"),
	                 0);
	assert_int_equal(S_setup_git(dir), 2);
	assert_int_equal(t_sh(dir, "grep -q 'is a symbolic link, which git does not read' err && "
	                           "test -L .gitattributes && test \"$(cat rules)\" = '*.c diff' "
	                           "&& ! git config merge.dtk-index.driver"),
	                 0);
	if (geteuid() != 0) { /* root reads any file */
		assert_int_equal(t_sh(dir,
		                      "rm .gitattributes && echo '*.c diff' >.gitattributes && "
		                      "chmod 000 .gitattributes"),
		                 0);
		assert_int_equal(S_setup_git(dir), 2);
		assert_int_equal(t_sh(dir, "chmod 644 .gitattributes && "
		                           "test \"$(cat .gitattributes)\" = '*.c diff'"),
		                 0);
	}
	t_done(dir);
}

/* Without /proc (DTK_SELF_NO_PROC), setup-git finds this dtk by argv[0]
 * (relative to where it started, before -C) or by PATH, and says so. */
static void test_setup_git_finds_itself_without_proc(void **state)
{
	char *dir = t_base(), *out;
	const char *env = "HOME=\"$PWD\" GIT_CONFIG_NOSYSTEM=1 DTK_SELF_NO_PROC=1";
	char want[4096];
	(void)state;
	S_commit(dir);
	snprintf(want, sizeof(want),
	         "git config merge.dtk-index.driver = '%s' merge-driver %%O "
	         "%%A %%B %%P\n",
	         DTK_BIN);
	assert_int_equal(DTK_BIN[0], '/');
	/* argv[0] relative to /, then -C into the base */
	assert_int_equal(t_sh(dir, "export %s && (cd / && '%s' -C \"$OLDPWD\" setup-git) >out", env,
	                      &DTK_BIN[1]),
	                 0);
	out = S_read(dir, "out", NULL);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "(this dtk's path, found by argv[0])\n"));
	free(out);
	/* a bare name, found on PATH */
	assert_int_equal(t_sh(dir, "export %s && PATH=\"$(dirname '%s'):$PATH\" dtk setup-git >out",
	                      env, DTK_BIN),
	                 0);
	out = S_read(dir, "out", NULL);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "(this dtk's path, found by PATH)\n"));
	free(out);
	assert_int_equal(t_sh(dir,
	                      "test \"$(git config merge.dtk-index.driver)\" = \"'%s' "
	                      "merge-driver %%O %%A %%B %%P\"",
	                      DTK_BIN),
	                 0);
	t_done(dir);
}

/* Control characters of the data never reach the terminal raw: a key with a
 * newline cannot forge a diagnostic line, ESC sequences (clear the screen,
 * set the window title) are shown escaped by show, list and check; JSON
 * escapes them by definition. */
static void test_control_characters_escaped(void **state)
{
	char *dir = t_base();
	struct t_run r;
	(void)state;
	assert_int_equal(t_sh(dir, "sed -i 's/    title: 初始化即固化/    title: "
	                           "\"init\\\\e]0;pwned\\\\a done\\\\u009b\"/' "
	                           "insights/alpha.yaml"),
	                 0);
	t_dtk(&r, dir, NULL, "show", "alpha-001", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\n  init\\x1b]0;pwned\\x07 done\\u009b\n"));
	assert_null(strchr(r.out, '\033'));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "list", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\tinit\\x1b]0;pwned\\x07 done\\u009b\n"));
	assert_null(strchr(r.out, '\033'));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "show", "alpha-001", "--format", "json", NULL);
	assert_int_equal(r.status, 0);
	assert_null(strchr(r.out, '\033'));
	t_run_free(&r);
	assert_int_equal(t_sh(dir,
	                      "printf '\"evil\\\\nnext.yaml:1:1: error: forged\\\\e[2J\": 1\\n' "
	                      ">>insights/alpha.yaml"),
	                 0);
	t_dtk(&r, dir, NULL, "check", NULL);
	assert_int_equal(r.status, 2);
	/* one line for the one error, the rest of the data escaped in it */
	assert_memory_equal(r.err,
	                    "insights/alpha.yaml:39:1: error: unknown key 'evil\\nnext.yaml:"
	                    "1:1: error: forged\\x1b[2J' in node file\ndtk: 1 error",
	                    strlen("insights/alpha.yaml:39:1: error: unknown key 'evil\\nnext.yaml:"
	                           "1:1: error: forged\\x1b[2J' in node file\ndtk: 1 error"));
	t_run_free(&r);
	t_dtk(&r, dir, NULL, "check", "--format", "github", NULL);
	assert_int_equal(r.status, 2);
	assert_null(strchr(r.out, '\033'));
	assert_non_null(strstr(r.out, "forged\\x1b[2J"));
	t_run_free(&r);
	t_done(dir);
}

/* Snapshots dir (every name, mode, size and time, every file's checksum;
 * not "..", where the snapshot goes, nor .git/dtk/, the node cache)
 * into the file snap beside it. */
static void S_snapshot(const char *dir, const char *snap)
{
	assert_int_equal(t_sh(dir,
	                      "{ ls -lanR --full-time . | grep -v ' \\.\\.$' | awk "
	                      "'/^\\.\\/\\.git\\/dtk:$/ { skip = 1; next } /^$/ { skip = 0 } "
	                      "!skip && !/ dtk$/' && "
	                      "find . -path ./.git/dtk -prune -o -type f -exec cksum {} + | "
	                      "LC_ALL=C sort; } >'../%s'",
	                      snap),
	                 0);
}

/* The commands docs/ say never write (check, show, list, next-id, log,
 * crystallize --plan) leave every byte and every time stamp of the base and
 * its repository as they were: on a base in sync, with drift, and invalid.
 * Only the node cache, in the git directory (.git/dtk/), may change: made
 * by a show first, it is left out of the comparison. */
static void test_read_only_commands_write_nothing(void **state)
{
	static const char *const cmds[] = {
	        "check",
	        "check --format github",
	        "show alpha",
	        "show alpha-001 --format json",
	        "list",
	        "list --format json",
	        "next-id alpha",
	        "log",
	        "log --format json",
	        "crystallize --plan",
	        "reindex --stdout",
	};
	char *top = t_mkdtemp(), *base = t_src("tests/fixtures/base"), dir[4096];
	size_t i, k;
	(void)state;
	snprintf(dir, sizeof(dir), "%s/base", top);
	t_copytree(base, dir);
	free(base);
	S_commit(dir);
	t_sh(dir, "HOME=\"$PWD\" '%s' show alpha >/dev/null 2>&1", DTK_BIN);
	assert_int_equal(t_sh(dir, "ls .git/dtk/nodes-* >/dev/null"), 0);
	for (k = 0; k < 3; k++) {
		if (k == 1) /* drift */
			assert_int_equal(t_sh(dir, "echo stale >>INDEX.md"), 0);
		if (k == 2) /* invalid */
			assert_int_equal(t_sh(dir, "echo 'bloom: [' >>insights/gamma.yaml"), 0);
		S_snapshot(dir, "before");
		for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++)
			t_sh(dir, "HOME=\"$PWD\" '%s' %s >/dev/null 2>&1", DTK_BIN, cmds[i]);
		S_snapshot(dir, "after");
		if (t_sh(top, "cmp -s before after") != 0) {
			t_sh(top, "diff before after >&2");
			fail_msg("a read-only command changed the base (state %zu)", k);
		}
	}
	t_rmtree(top);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_stdout_write_error),
	        cmocka_unit_test(test_stdout_error_after_writing),
	        cmocka_unit_test(test_check_unknown_format),
	        cmocka_unit_test(test_fresh_ids_after_the_last_number),
	        cmocka_unit_test(test_new_files_follow_the_umask),
	        cmocka_unit_test(test_log_reports_invalid_records),
	        cmocka_unit_test(test_index_must_be_a_regular_file),
	        cmocka_unit_test(test_insights_link_containment),
	        cmocka_unit_test(test_setup_git_attributes),
	        cmocka_unit_test(test_setup_git_finds_itself_without_proc),
	        cmocka_unit_test(test_control_characters_escaped),
	        cmocka_unit_test(test_read_only_commands_write_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
