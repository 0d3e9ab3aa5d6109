/* A main() for the fuzz targets when libFuzzer is not linked in (gcc, the aarch64 cross build):
 * runs LLVMFuzzerTestOneInput once on each file given, or on every file of each directory given
 * (the committed corpus), so the corpus is a regression test on every compiler and ISA.
 *   fuzz_softmax tests/fuzz/corpus/softmax          every input of that corpus
 *   fuzz_softmax crash-1234                           one input */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) abort();
            buf = nb;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        if (!got) break;
        n += got;
    }
    fclose(f);
    /* an exact-size copy, so that reads past the input are caught by the sanitizers */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) abort();
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int errors = 0;
    size_t runs = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += run_file(argv[i]);
            runs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            errors++;
            continue;
        }
        char **names = NULL;
        size_t nn = 0;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            names = realloc(names, (nn + 1) * sizeof *names);
            const size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[nn] = malloc(len);
            snprintf(names[nn], len, "%s/%s", argv[i], e->d_name);
            nn++;
        }
        closedir(d);
        qsort(names, nn, sizeof *names, cmp_str); /* a fixed order: reproducible runs */
        for (size_t j = 0; j < nn; j++) {
            errors += run_file(names[j]);
            runs++;
            free(names[j]);
        }
        free(names);
    }
    printf("replay: %zu inputs, %d unreadable\n", runs, errors);
    return errors != 0 || runs == 0;
}
