/* ytext.c: the lines of a YAML file's text (see ytext.h). */
#include "dtk/ytext.h"

size_t dtk_ytext_line_start(const char *buf, size_t off)
{
	while (off > 0 && buf[off - 1] != '\n' && buf[off - 1] != '\r')
		off--;
	return off;
}

size_t dtk_ytext_line_end(const char *buf, size_t len, size_t off)
{
	while (off < len && buf[off] != '\n' && buf[off] != '\r')
		off++;
	if (off < len && buf[off] == '\r')
		off++;
	if (off < len && buf[off] == '\n')
		off++;
	return off;
}

int dtk_ytext_indent(const char *buf, size_t off)
{
	size_t p = dtk_ytext_line_start(buf, off);
	int n = 0;

	while (buf[p + (size_t)n] == ' ')
		n++;
	return n;
}

void dtk_ytext_spaces(struct dtk_buf *b, int n)
{
	while (n-- > 0)
		dtk_buf_putc(b, ' ');
}
