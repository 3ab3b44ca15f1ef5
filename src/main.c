/* main.c: the dtk program; all of it is in the core library. */
#include "dtk/cmd.h"

int main(int argc, char **argv)
{
	return dtk_main(argc, argv);
}
