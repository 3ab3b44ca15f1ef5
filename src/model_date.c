/* model_date.c: calendar dates as YYYYMMDD integers. */
#include "dtk/model.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int S_days_in_month(int y, int m)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return days[m - 1];
}

int dtk_date_parse(dtk_date *out, const char *s)
{
	int y, m, d, i;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return -1;
	for (i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return -1;
	y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	m = (s[5] - '0') * 10 + (s[6] - '0');
	d = (s[8] - '0') * 10 + (s[9] - '0');
	if (y < 1 || m < 1 || m > 12 || d < 1 || d > S_days_in_month(y, m))
		return -1;
	*out = y * 10000 + m * 100 + d;
	return 0;
}

char *dtk_date_format(char *buf, dtk_date d)
{
	/* no parse or computation yields a date past DTK_DATE_MAX (add_months
	 * stops there); should one come, it prints as that date, never as a
	 * year cut to four digits */
	unsigned u = d > 0 ? (unsigned)(d > DTK_DATE_MAX ? DTK_DATE_MAX : d) : 0;
	snprintf(buf, 11, "%04u-%02u-%02u", u / 10000, (u / 100) % 100, u % 100);
	return buf;
}

dtk_date dtk_date_add_months(dtk_date d, int months)
{
	int y = d / 10000, m = (d / 100) % 100, day = d % 100;
	int total = y * 12 + (m - 1) + months;
	int dim;

	y = total / 12;
	m = total % 12 + 1;
	if (y > 9999)
		return DTK_DATE_MAX;
	dim = S_days_in_month(y, m);
	if (day > dim)
		day = dim;
	return y * 10000 + m * 100 + day;
}

dtk_date dtk_date_today(void)
{
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	return (tm.tm_year + 1900) * 10000 + (tm.tm_mon + 1) * 100 + tm.tm_mday;
}
