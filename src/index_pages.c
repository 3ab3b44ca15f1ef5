/* index_pages.c: the generated pages of index/ on disk, brought in line
 * with those INDEX.md links (docs/index-format.md, "The budget"). */
#include "dtk/index.h"

#include "dtk/dtk.h"
#include "dtk/fs.h"
#include "dtk/git.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Returns 1 when page g of p names the file name of index/. */
static int S_generated(const struct dtk_index_pages *p, const char *name)
{
	size_t i, dir = strlen(DTK_INDEX_PAGES_DIR "/");

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].rel + dir, name))
			return 1;
	return 0;
}

int dtk_index_file_sync(const char *root, const char *rel, const char *text, size_t len, int write,
                        dtk_page_fn fn, void *arg)
{
	char *path = dtk_path_join(root, rel), *old = NULL, *conv = NULL, *dir = NULL;
	size_t old_len = 0, conv_len = 0;
	int rc = dtk_file_read_regular(&old, &old_len, path, DTK_MAX_INDEX_BYTES), state;

	if (rc < 0)
		goto done;
	state = rc == 1 ? DTK_PAGE_MISSING : DTK_PAGE_DIFFERS;
	rc = 0;
	if (old && old_len == len && !memcmp(old, text, len))
		goto done;
	/* as git checks it out (CRLF with core.autocrlf or .gitattributes eol),
	 * which the file may already be; only now is libgit2 asked */
	if ((rc = dtk_git_checkout_form(&conv, &conv_len, path, text, len)) < 0)
		goto done;
	if (rc == 1 && old && old_len == conv_len && !memcmp(old, conv, old_len)) {
		rc = 0;
		goto done;
	}
	if (write && state == DTK_PAGE_MISSING && strchr(rel, '/')) {
		dir = dtk_xstrndup(path, (size_t)(strrchr(path, '/') - path));
		if ((rc = dtk_file_mkdirs(dir, 0777)) < 0)
			goto done;
	}
	if (write &&
	    (rc = dtk_file_write_atomic(path, conv ? conv : text, conv ? conv_len : len)) < 0)
		goto done;
	if (fn)
		fn(arg, rel, state, old ? old : "", old_len, text, len);
	rc = 1;
done:
	free(dir);
	free(conv);
	free(old);
	free(path);
	return rc;
}

int dtk_index_pages_sync(const char *root, const struct dtk_index_pages *p, int write,
                         dtk_page_fn fn, void *arg)
{
	char *dir = dtk_path_join(root, DTK_INDEX_PAGES_DIR), *path = NULL;
	struct dirent *de;
	struct dtk_buf rel = DTK_BUF_INIT;
	DIR *d;
	size_t i, len;
	int n = 0, r;

	for (i = 0; i < p->n; i++) {
		if ((r = dtk_index_file_sync(root, p->v[i].rel, p->v[i].text, p->v[i].len, write,
		                             fn, arg)) < 0) {
			n = -1;
			goto done;
		}
		n += r;
	}
	if (!(d = opendir(dir))) /* no folder: no stale page */
		goto done;
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 4 || de->d_name[0] == '.' || strcmp(de->d_name + len - 3, ".md") ||
		    S_generated(p, de->d_name))
			continue;
		rel.len = 0;
		dtk_buf_printf(&rel, "%s/%s", DTK_INDEX_PAGES_DIR, de->d_name);
		free(path);
		path = dtk_path_join(root, rel.ptr);
		if (write && unlink(path) < 0) {
			n = dtk_error("cannot remove %s: %s", rel.ptr, strerror(errno));
			break;
		}
		if (fn)
			fn(arg, rel.ptr, DTK_PAGE_STALE, NULL, 0, NULL, 0);
		n++;
	}
	closedir(d);
	if (write && n > 0 && !p->n)
		(void)rmdir(dir); /* left empty: it goes too (not when it holds other files) */
done:
	dtk_buf_release(&rel);
	free(path);
	free(dir);
	return n;
}
