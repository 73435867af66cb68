/* A power cut, emulated (issue 32.1): loaded with LD_PRELOAD into a hub process.
 *
 * On every fsync/fdatasync of a file directly in $TRIGONO_POWERCUT_DATA, the file's
 * bytes at that moment are copied to $TRIGONO_POWERCUT_DURABLE (same name, replaced
 * atomically): that folder then holds, for each file, what the disk is guaranteed to
 * have kept, and nothing of a file never synced. Putting it in place of the data folder
 * after a SIGKILL is a power cut at that instant that lost everything it was allowed to
 * lose (data written and not synced may survive a real cut; here it never does).
 * A file deleted from the data folder leaves the durable one at the next sync of any
 * file, as a journalling filesystem (ext4) commits earlier metadata with an fsync: SQLite
 * deletes its rollback journal without syncing the folder. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t copying = PTHREAD_MUTEX_INITIALIZER;

static void forget_deleted(const char *data, const char *durable) {
    DIR *dir = opendir(durable);
    if (dir == NULL) return;
    struct dirent *e;
    char there[PATH_MAX], here[PATH_MAX];
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;  /* ., .. and copies under way */
        snprintf(there, sizeof there, "%s/%s", data, e->d_name);
        snprintf(here, sizeof here, "%s/%s", durable, e->d_name);
        if (access(there, F_OK) != 0) unlink(here);
    }
    closedir(dir);
}

static void keep_durable(int fd) {
    const char *data = getenv("TRIGONO_POWERCUT_DATA");
    const char *durable = getenv("TRIGONO_POWERCUT_DURABLE");
    if (data == NULL || durable == NULL) return;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0) return;
    path[n] = '\0';
    size_t len = strlen(data);
    if (strncmp(path, data, len) != 0 || path[len] != '/') return;  /* elsewhere, or the folder */
    const char *name = path + len + 1;
    if (*name == '\0' || strchr(name, '/') != NULL) return;
    char tmp[PATH_MAX], dest[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/.%s.partial", durable, name);
    snprintf(dest, sizeof dest, "%s/%s", durable, name);
    pthread_mutex_lock(&copying);
    forget_deleted(data, durable);
    int in = open(path, O_RDONLY | O_CLOEXEC);
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (in >= 0 && out >= 0) {
        char buf[1 << 16];
        ssize_t got;
        int ok = 1;
        while ((got = read(in, buf, sizeof buf)) > 0) {
            if (write(out, buf, (size_t)got) != got) { ok = 0; break; }
        }
        if (got < 0) ok = 0;
        close(out);
        out = -1;
        if (ok) rename(tmp, dest);
        else abort();  /* a copy that failed would make the test lie: fail loudly */
    }
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    pthread_mutex_unlock(&copying);
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int rc = real(fd);
    if (rc == 0) keep_durable(fd);
    return rc;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int rc = real(fd);
    if (rc == 0) keep_durable(fd);
    return rc;
}
