/*
 * A statically linked "hello" (bench/throughput.sh): what starting a
 * process costs with no dynamic loader, no shared libraries and no
 * relocations, the lower bound for a client such as sbatch.
 */
#include <unistd.h>

int main(void)
{
    static const char msg[] = "hello\n";

    return write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0;
}
