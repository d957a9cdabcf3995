#pragma once
// A small tmpfs mounted on a fresh directory, for tests of a full or read-only disk: a real file system that
// answers ENOSPC once full and EROFS once remounted read-only. Mounting needs root (the tests' machines run as
// root); the constructor throws with the reason otherwise. Unmounted (lazily, so a process still holding a file
// cannot keep it) and removed when the object goes.
#include "tests/support/temp_dir.h"

#include <sys/mount.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace kapi::test_support {

class TmpfsMount {
 public:
  explicit TmpfsMount(std::size_t size_bytes) : dir_("kapi-tmpfs") {
    options_ = "size=" + std::to_string(size_bytes);
    if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, options_.c_str()) != 0) {
      throw std::runtime_error("mount tmpfs on " + dir_.path().string() + " (needs root): " + std::strerror(errno));
    }
  }
  ~TmpfsMount() { ::umount2(dir_.path().c_str(), MNT_DETACH); }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  const std::filesystem::path& path() const noexcept { return dir_.path(); }

  // Every later write on the file system fails with EROFS; files already open for writing included.
  void remount_read_only() { remount(MS_RDONLY); }
  void remount_read_write() { remount(0); }

 private:
  void remount(unsigned long flags) {
    if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", MS_REMOUNT | flags, options_.c_str()) != 0) {
      throw std::runtime_error("remount " + dir_.path().string() + ": " + std::strerror(errno));
    }
  }

  TempDir dir_;  // declared first: removed after the unmount
  std::string options_;
};

}  // namespace kapi::test_support
