/* app/main.c: PLACEHOLDER entry point while the CLI is written. */
#include <stdio.h>
int main(void) { puts("cudojo"); return 0; }
