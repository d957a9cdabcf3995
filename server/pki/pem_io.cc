#include "server/pki/pem_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/pem.h>

namespace kapi::pki {
namespace {

BioPtr new_memory_bio() {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) throw_openssl_error("cannot allocate a memory BIO");
  return bio;
}

BioPtr read_only_bio(std::string_view bytes) {
  BioPtr bio(BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size())));
  if (!bio) throw_openssl_error("cannot allocate a memory BIO");
  return bio;
}

std::string bio_contents(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// OpenSSL's default pass-phrase callback reads the terminal; a server must fail instead.
int refuse_pass_phrase(char*, int, int, void*) { return 0; }

[[noreturn]] void throw_errno(std::string_view what, const std::filesystem::path& path) {
  const int error = errno;
  throw std::runtime_error(std::string(what) + " " + path.string() + ": " + std::strerror(error));
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // close(2) can report a deferred write error, so callers that care close explicitly.
  int close() { return ::close(std::exchange(fd_, -1)); }

 private:
  int fd_;
};

// Removes the temporary file unless the rename consumed it.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::filesystem::path path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::filesystem::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  std::filesystem::path path_;
};

void write_all(int fd, std::string_view contents, const std::filesystem::path& path) {
  while (!contents.empty()) {
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot write", path);
    }
    contents.remove_prefix(static_cast<std::size_t>(written));
  }
}

void sync_directory(const std::filesystem::path& directory) {
  FileDescriptor fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) throw_errno("cannot open directory", directory);
  if (::fsync(fd.get()) != 0) throw_errno("cannot sync directory", directory);
}

}  // namespace

std::string certificate_to_pem(X509* certificate) {
  BioPtr bio = new_memory_bio();
  if (PEM_write_bio_X509(bio.get(), certificate) != 1) throw_openssl_error("cannot PEM-encode a certificate");
  return bio_contents(bio.get());
}

std::string private_key_to_pem(const EVP_PKEY* key) {
  BioPtr bio = new_memory_bio();
  if (PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    throw_openssl_error("cannot PEM-encode a private key");
  }
  return bio_contents(bio.get());
}

std::string public_key_to_pem(const EVP_PKEY* key) {
  BioPtr bio = new_memory_bio();
  if (PEM_write_bio_PUBKEY(bio.get(), key) != 1) throw_openssl_error("cannot PEM-encode a public key");
  return bio_contents(bio.get());
}

X509Ptr parse_certificate_pem(std::string_view pem, std::string_view source) {
  BioPtr bio = read_only_bio(pem);
  X509Ptr certificate(PEM_read_bio_X509(bio.get(), nullptr, refuse_pass_phrase, nullptr));
  if (!certificate) throw_openssl_error(std::string(source) + ": no PEM certificate");
  return certificate;
}

EvpPkeyPtr parse_private_key_pem(std::string_view pem, std::string_view source) {
  BioPtr bio = read_only_bio(pem);
  EvpPkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_pass_phrase, nullptr));
  if (!key) throw_openssl_error(std::string(source) + ": no unencrypted PEM private key");
  return key;
}

EvpPkeyPtr parse_public_key_pem(std::string_view pem, std::string_view source) {
  BioPtr bio = read_only_bio(pem);
  EvpPkeyPtr key(PEM_read_bio_PUBKEY(bio.get(), nullptr, refuse_pass_phrase, nullptr));
  if (!key) throw_openssl_error(std::string(source) + ": no PEM public key");
  return key;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_errno("cannot open", path);
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) throw_errno("cannot read", path);
  return std::move(contents).str();
}

X509Ptr read_certificate_file(const std::filesystem::path& path) {
  return parse_certificate_pem(read_file(path), path.string());
}

EvpPkeyPtr read_private_key_file(const std::filesystem::path& path) {
  return parse_private_key_pem(read_file(path), path.string());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents, mode_t mode) {
  std::string name_template = path.string() + ".tmp-XXXXXX";
  // mkstemp creates the file 0600, so a key is never readable by others, not even before fchmod.
  FileDescriptor fd(::mkostemp(name_template.data(), O_CLOEXEC));
  if (fd.get() < 0) throw_errno("cannot create a temporary file for", path);
  TemporaryFile temporary(name_template);

  if (::fchmod(fd.get(), mode) != 0) throw_errno("cannot set the mode of", temporary.path());
  write_all(fd.get(), contents, temporary.path());
  if (::fsync(fd.get()) != 0) throw_errno("cannot sync", temporary.path());
  if (fd.close() != 0) throw_errno("cannot close", temporary.path());
  if (::rename(temporary.path().c_str(), path.c_str()) != 0) throw_errno("cannot rename a temporary file to", path);
  temporary.release();
  sync_directory(path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
}

}  // namespace kapi::pki
