// The child process of the durability test (embedded_durability_test.cc): opens the embedded store in the given
// data dir and creates keys from several concurrent writers as fast as it can, printing each key on stdout only
// once its create has been acknowledged. It runs until it is killed.
//
// usage: kapi-embedded-writer <data-dir> <run-id>
#include "storage/embedded/store.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>

#include <unistd.h>

#include <cstdio>
#include <string>

namespace {

constexpr int kWriters = 16;

asio::awaitable<void> write_forever(kapi::storage::Interface& store, std::string prefix) {
  const std::string value(512, 'x');
  for (long n = 0;; ++n) {
    std::string key = prefix + std::to_string(n);
    auto created = store.create(key, value, {});  // named: g++ 12 and temporaries in co_await expressions
    co_await std::move(created);
    key += '\n';
    // One write(2) per line, shorter than PIPE_BUF: the parent never sees half a key.
    if (::write(STDOUT_FILENO, key.data(), key.size()) != static_cast<ssize_t>(key.size())) std::_Exit(3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <data-dir> <run-id>\n", argv[0]);
    return 2;
  }
  try {
    kapi::storage::embedded::Options options;
    options.data_dir = argv[1];
    auto store = kapi::storage::embedded::Store::open(options);
    asio::io_context io;
    for (int w = 0; w < kWriters; ++w) {
      const std::string prefix = "/durability/" + std::string(argv[2]) + "/" + std::to_string(w) + "/";
      asio::co_spawn(io, write_forever(*store, prefix), [](std::exception_ptr error) {
        if (!error) return;
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "writer failed: %s\n", e.what());
        }
        std::_Exit(1);
      });
    }
    io.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kapi-embedded-writer: %s\n", e.what());
    return 1;
  }
  return 0;
}
