/* kptop.c — options, wiring of the layers, batch mode. */
#include <stdio.h>

int main(void)
{
	puts("kptop: not built yet");
	return 1;
}
