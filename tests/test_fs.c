/* test_fs.c: whole-file reads, the streamed comparison, atomic replacement. */
#include "support.h"

#include "dtk/fs.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Returns n bytes of a text with no period shorter than 64 KiB; malloc'd. */
static char *S_text(size_t n)
{
	char *s = malloc(n + 1);
	size_t i;
	for (i = 0; i < n; i++)
		s[i] = (char)('a' + (i * 7 + i / 26) % 26);
	s[n] = '\0';
	return s;
}

/* Compares text, written in pieces of step bytes, with the file dir/name.
 * Returns dtk_file_cmp_finish's answer; *kept gets the text kept (or NULL). */
static int S_cmp(const char *dir, const char *name, const char *text, size_t len, size_t step,
                 char **kept)
{
	struct dtk_file_cmp c = {.fd = -1};
	char *path = dtk_path_join(dir, name);
	size_t at;
	int rc;

	assert_int_equal(dtk_file_cmp_open(&c, path, DTK_MAX_INDEX_BYTES), 0);
	for (at = 0; at < len; at += step)
		assert_int_equal(
		        dtk_file_cmp_write(&c, text + at, len - at < step ? len - at : step), 0);
	rc = dtk_file_cmp_finish(&c);
	*kept = rc == 1 ? dtk_xstrdup(dtk_buf_cstr(&c.text)) : NULL;
	if (rc == 1)
		assert_int_equal(c.text.len, len);
	dtk_file_cmp_release(&c);
	dtk_file_cmp_release(&c); /* twice is harmless */
	free(path);
	return rc;
}

static void test_cmp(void **state)
{
	const size_t n = 200000, steps[] = {1, 7, 4096, 65536, 70000, 200000};
	char *dir = t_mkdtemp(), *text = S_text(n), *other = S_text(n), *kept;
	size_t i;
	(void)state;

	t_write(dir, "same", text, n);
	t_write(dir, "short", text, n - 1);
	other[131073] = 'Z'; /* differs past the first two pieces of the file */
	t_write(dir, "other", other, n);
	t_write(dir, "empty", "", 0);
	{
		char *longer = malloc(n + 1);
		memcpy(longer, text, n);
		longer[n] = '\n';
		t_write(dir, "long", longer, n + 1);
		free(longer);
	}
	for (i = 0; i < sizeof(steps) / sizeof(*steps); i++) {
		assert_int_equal(S_cmp(dir, "same", text, n, steps[i], &kept), 0);
		assert_null(kept);
		const char *names[] = {"short", "long", "other", "empty", "missing"};
		size_t k;
		for (k = 0; k < 5; k++) {
			assert_int_equal(S_cmp(dir, names[k], text, n, steps[i], &kept), 1);
			assert_string_equal(kept, text); /* the new text, whole */
			free(kept);
		}
	}
	/* no text and an empty file agree */
	assert_int_equal(S_cmp(dir, "empty", "", 0, 1, &kept), 0);
	assert_int_equal(S_cmp(dir, "missing", "", 0, 1, &kept), 1);
	free(kept);
	t_rmtree(dir);
	free(dir);
	free(text);
	free(other);
}

static void test_cmp_unreadable(void **state)
{
	struct dtk_file_cmp c = {.fd = -1};
	char *dir = t_mkdtemp(), *sub = dtk_path_join(dir, "d"), *path;
	(void)state;
	/* a directory is refused when opened: an error, not a difference */
	t_write(dir, "d/x", "x", 1);
	assert_int_equal(dtk_file_cmp_open(&c, sub, DTK_MAX_INDEX_BYTES), -1);
	assert_non_null(strstr(dtk_error_last(), "cannot read"));
	assert_non_null(strstr(dtk_error_last(), "Is a directory"));
	dtk_file_cmp_release(&c);
	/* a path through a file cannot be opened */
	path = dtk_path_join(dir, "d/x/y");
	assert_int_equal(dtk_file_cmp_open(&c, path, DTK_MAX_INDEX_BYTES), -1);
	dtk_file_cmp_release(&c);
	t_rmtree(dir);
	free(dir);
	free(sub);
	free(path);
}

/* Only a regular file is compared: a symbolic link (its target would be
 * shown in a diff), a FIFO (opening it would wait) and a device (/dev/zero
 * never ends) are refused at once, saying what they are; so is a file over
 * the limit. */
static void test_cmp_regular_files_only(void **state)
{
	struct dtk_file_cmp c = {.fd = -1};
	char *dir = t_mkdtemp(), path[4096];
	(void)state;
	t_write(dir, "secret", "secret\n", 7);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("secret", path), 0);
	assert_int_equal(dtk_file_cmp_open(&c, path, DTK_MAX_INDEX_BYTES), -1);
	assert_non_null(strstr(dtk_error_last(), "link: it is a symbolic link"));
	dtk_file_cmp_release(&c);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(dtk_file_cmp_open(&c, path, DTK_MAX_INDEX_BYTES), -1);
	assert_non_null(strstr(dtk_error_last(), "fifo: it is a special file"));
	dtk_file_cmp_release(&c);
	assert_int_equal(dtk_file_cmp_open(&c, "/dev/zero", DTK_MAX_INDEX_BYTES), -1);
	assert_string_equal(dtk_error_last(), "cannot read /dev/zero: it is a special file (it "
	                                      "must be a regular file)");
	dtk_file_cmp_release(&c);
	snprintf(path, sizeof(path), "%s/secret", dir);
	assert_int_equal(dtk_file_cmp_open(&c, path, 6), -1);
	assert_non_null(strstr(dtk_error_last(), "it is larger than the limit of 6 bytes"));
	dtk_file_cmp_release(&c);
	assert_int_equal(dtk_file_cmp_open(&c, path, 7), 0);
	dtk_file_cmp_release(&c);
	t_rmtree(dir);
	free(dir);
}

struct swapper {
	char link[4096], tmp[4096];
	atomic_int stop;
};

/* Swaps the link between a file inside and one outside until told to stop. */
static void *S_swap(void *arg)
{
	struct swapper *sw = arg;
	int i = 0;
	while (!atomic_load(&sw->stop)) {
		unlink(sw->tmp);
		if (symlink(i++ % 2 ? "../outside/secret" : "inside", sw->tmp) == 0)
			rename(sw->tmp, sw->link);
	}
	return NULL;
}

/* A link of the base swapped between inside and outside while it is being
 * opened: whatever is opened is the file inside, never the one outside; and
 * a file whose directory is a link leading out is refused. */
static void test_open_within_races(void **state)
{
	struct swapper sw;
	pthread_t tid;
	char *dir = t_mkdtemp(), base[4096], *real, *text;
	int i, fd, rc, opened = 0, refused = 0;
	size_t len;
	(void)state;
	t_write(dir, "base/inside", "inside\n", 7);
	t_write(dir, "outside/secret", "secret\n", 7);
	snprintf(base, sizeof(base), "%s/base", dir);
	real = realpath(base, NULL);
	assert_non_null(real);
	snprintf(sw.link, sizeof(sw.link), "%s/x.yaml", real);
	snprintf(sw.tmp, sizeof(sw.tmp), "%s/x.tmp", real);
	assert_int_equal(symlink("inside", sw.link), 0);
	atomic_init(&sw.stop, 0);
	assert_int_equal(pthread_create(&tid, NULL, S_swap, &sw), 0);
	for (i = 0; i < 20000; i++) {
		rc = dtk_file_open_within(&fd, real, sw.link);
		if (rc != 0) {
			refused++;
			continue;
		}
		opened++;
		assert_int_equal(dtk_file_read_fd(&text, &len, fd, sw.link, 100), 0);
		close(fd);
		if (strcmp(text, "inside\n"))
			fail_msg("read the file outside: %s", text);
		free(text);
	}
	atomic_store(&sw.stop, 1);
	pthread_join(tid, NULL);
	assert_true(opened > 0);
	assert_true(refused > 0);
	/* the directory of the file a link leading out */
	assert_int_equal(t_sh(real, "mkdir -p ../outside/d && echo x >../outside/d/f.yaml && "
	                            "ln -s ../outside/d d"),
	                 0);
	snprintf(base, sizeof(base), "%s/d/f.yaml", real);
	assert_int_equal(dtk_file_open_within(&fd, real, base), -1);
	assert_string_equal(dtk_error_last(), "is outside the repository (a directory on its "
	                                      "path is a symbolic link leading out)");
	snprintf(base, sizeof(base), "%s/nothing.yaml", real);
	assert_int_equal(dtk_file_open_within(&fd, real, base), 1);
	free(real);
	t_rmtree(dir);
	free(dir);
}

static void test_read_and_write_atomic(void **state)
{
	char *dir = t_mkdtemp(), *path = dtk_path_join(dir, "f"), *out;
	size_t len;
	(void)state;
	assert_int_equal(dtk_file_write_atomic(path, "hello", 5), 0);
	assert_int_equal(dtk_file_read(&out, &len, path, 100), 0);
	assert_int_equal(len, 5);
	assert_string_equal(out, "hello");
	free(out);
	assert_int_equal(dtk_file_read(&out, &len, path, 4), DTK_ETOOBIG);
	assert_null(out);
	t_rmtree(dir);
	free(dir);
	free(path);
}

/* dtk_file_mkdirs makes every missing directory of a path; a file in the
 * way is an error naming it, the file left byte for byte */
static void test_mkdirs(void **state)
{
	char *dir = t_mkdtemp(), *deep = dtk_path_join(dir, "a/b/c"), *in_way, *kept;
	struct stat st;
	size_t len;
	(void)state;
	assert_int_equal(dtk_file_mkdirs(deep, 0700), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(dtk_file_mkdirs(deep, 0700), 0); /* all there: nothing to do */
	t_write_str(dir, "file", "kept\n");
	in_way = dtk_path_join(dir, "file/x");
	assert_int_equal(dtk_file_mkdirs(in_way, 0700), -1);
	assert_non_null(strstr(dtk_error_last(), "cannot make "));
	assert_non_null(strstr(dtk_error_last(), "/file"));
	kept = t_read(dir, "file", &len);
	assert_int_equal(len, 5);
	assert_memory_equal(kept, "kept\n", 5);
	free(kept);
	t_rmtree(dir);
	free(in_way);
	free(deep);
	free(dir);
}

/* The PATH search: the first executable regular file, in the list's order;
 * a file that is not executable, or a directory, is passed over. */
static void test_path_search(void **state)
{
	char *dir = t_mkdtemp(), *got, *want;
	struct dtk_buf list = DTK_BUF_INIT;
	(void)state;
	assert_int_equal(t_sh(dir,
	                      "mkdir -p a b c c/x d && touch a/x && printf '#!/bin/sh\\n' >b/x "
	                      "&& chmod +x b/x && cp b/x d/x"),
	                 0);
	dtk_buf_printf(&list, "%s/a:%s/c:%s/b:%s/d", dir, dir, dir, dir);
	got = dtk_path_search(list.ptr, "x");
	want = dtk_path_join(dir, "b/x");
	assert_string_equal(got, want);
	free(got);
	free(want);
	assert_null(dtk_path_search(list.ptr, "y"));
	assert_null(dtk_path_search(NULL, "x"));
	dtk_buf_release(&list);
	t_done(dir);
}

/* dtk_file_open_at opens a regular file of a directory open as a
 * descriptor; says 1 for a name that is not there; leaves a link (even to a
 * file beside it), a FIFO and a directory to the careful way (2), unopened. */
static void test_open_at(void **state)
{
	char *dir = t_mkdtemp(), path[4096], buf[8];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), fd = -1;
	(void)state;
	assert_true(dfd >= 0);
	t_write(dir, "plain.yaml", "node: a\n", 8);
	assert_int_equal(dtk_file_open_at(&fd, dfd, "plain.yaml"), 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 8);
	close(fd);
	fd = -1;
	assert_int_equal(dtk_file_open_at(&fd, dfd, "absent.yaml"), 1);
	snprintf(path, sizeof(path), "%s/link.yaml", dir);
	assert_int_equal(symlink("plain.yaml", path), 0);
	assert_int_equal(dtk_file_open_at(&fd, dfd, "link.yaml"), 2);
	snprintf(path, sizeof(path), "%s/fifo.yaml", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(dtk_file_open_at(&fd, dfd, "fifo.yaml"), 2);
	snprintf(path, sizeof(path), "%s/dir.yaml", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(dtk_file_open_at(&fd, dfd, "dir.yaml"), 2);
	assert_int_equal(fd, -1);
	close(dfd);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_path_search),
	        cmocka_unit_test(test_cmp),
	        cmocka_unit_test(test_cmp_unreadable),
	        cmocka_unit_test(test_cmp_regular_files_only),
	        cmocka_unit_test(test_open_within_races),
	        cmocka_unit_test(test_open_at),
	        cmocka_unit_test(test_read_and_write_atomic),
	        cmocka_unit_test(test_mkdirs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
