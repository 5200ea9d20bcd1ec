/* The shim's test program (TestShim): the calls a database makes on a device's files
 * and on others, with the counts TestShim expects. Built with _FORTIFY_SOURCE, as
 * Debian builds its servers, so reads into fixed buffers go through __read_chk. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void must(int ok, const char *what)
{
	if (!ok) {
		perror(what);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *tier = argv[1], *other = argv[2];
	char path[4096];
	static char buf[8192] __attribute__((aligned(4096)));
	memset(buf, 'x', sizeof buf);

	/* on the device: 3 writes, 2 flushes, 3 reads */
	snprintf(path, sizeof path, "%s/a", tier);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	must(fd >= 0, "open a");
	must(write(fd, buf, 8192) == 8192, "write");
	must(pwrite(fd, buf, 8192, 8192) == 8192, "pwrite");
	struct iovec iov[2] = {{buf, 4096}, {buf + 4096, 4096}};
	must(pwritev(fd, iov, 2, 16384) == 8192, "pwritev");
	must(fsync(fd) == 0, "fsync");
	must(fdatasync(fd) == 0, "fdatasync");
	must(pread(fd, buf, sizeof buf, 0) == 8192, "pread");
	must(lseek(fd, 8192, SEEK_SET) == 8192, "lseek");
	must(read(fd, buf, sizeof buf) == 8192, "read");
	must(preadv(fd, iov, 2, 16384) == 8192, "preadv");
	/* a read past the end reaches no device */
	must(pread(fd, buf, sizeof buf, 1 << 20) == 0, "pread past the end");

	/* a duplicate is the same file: 1 write */
	int d = dup(fd);
	must(d >= 0, "dup");
	must(pwrite(d, buf, 4096, 0) == 4096, "pwrite dup");
	close(d);

	/* a child's I/O counts: 1 write */
	pid_t pid = fork();
	if (pid == 0) {
		_exit(pwrite(fd, buf, 4096, 4096) == 4096 ? 0 : 1);
	}
	int st;
	must(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child");

	/* mmap of a device's file cannot be timed: reported */
	void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	must(m != MAP_FAILED, "mmap");
	munmap(m, 4096);
	close(fd);

	/* a relative path, and O_DIRECT: 1 write, 1 read */
	must(chdir(tier) == 0, "chdir");
	fd = open("b", O_RDWR | O_CREAT | O_DIRECT, 0644);
	must(fd >= 0, "open b");
	/* the backing file is used without O_DIRECT (the model has it), as the program
	 * still sees it */
	must((fcntl(fd, F_GETFL) & O_DIRECT) != 0, "F_GETFL shows O_DIRECT");
	must(pwrite(fd, buf, 4096, 0) == 4096, "pwrite b");
	must(pread(fd, buf, 4096, 0) == 4096, "pread b");

	/* not on a device: nothing counts, also when it reuses a device file's number */
	close(fd);
	snprintf(path, sizeof path, "%s/c", other);
	int o = open(path, O_RDWR | O_CREAT, 0644);
	must(o >= 0, "open c");
	must(write(o, buf, 8192) == 8192, "write c");
	must(pread(o, buf, 8192, 0) == 8192, "pread c");
	must(fsync(o) == 0, "fsync c");
	close(o);
	return 0;
}
