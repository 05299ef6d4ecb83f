#pragma once
// The temporary files of io::RootWriter::replace (atomic_file.cpp), made safe
// for several writers of one target at once (two `status --output` runs on
// one textfile, a timer and a user):
//  * a name of its own per writer: "<prefix><pid>-<16 random hex digits>",
//    created O_EXCL, never reused;
//  * held under an exclusive flock(2) from its creation to the rename over
//    the target: a live writer's file is locked;
//  * sweep_stale_temps() removes only a file whose lock it could take (its
//    writer has died: a crash, a kill) and that still is the file it locked;
//    it never unlinks a file another writer holds.
#include "io/unique_fd.hpp"

#include <string>

namespace rdnafix::io::detail {

struct TempFile {
	unique_fd fd; // O_WRONLY, mode 0600, locked
	std::string name;
};

// A new locked temp file in the directory `dirfd`; on failure fd is empty
// and *err holds the errno.
TempFile create_temp(int dirfd, const std::string &prefix, int *err);

// Remove the temp files starting with `prefix` in `dirfd` that no live writer
// holds (left by a writer that died).  Best effort: errors are ignored.
void sweep_stale_temps(int dirfd, const std::string &prefix);

} // namespace rdnafix::io::detail
