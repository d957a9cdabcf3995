#pragma once
// The storage backends the conformance suite (conformance.h) runs against. Adding a backend is one
// line in all_backends() plus its factory function in its own file.
#include "storage/interface.h"

#include <asio/any_io_executor.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kapi::storage::conformance {

// One backend instance for one test; destroying it releases everything (temp dirs, processes, keys).
class TestBackend {
 public:
  virtual ~TestBackend() = default;
  virtual Interface& store() = 0;
  // Every key a test writes starts with it, so backends may share one server between tests.
  virtual std::string key_root() const { return "/registry"; }
};

struct BackendFactory {
  std::string name;  // a GoogleTest parameter name: letters, digits, '_'
  // `executor` is the test's io_context (the one the test's coroutines run on).
  std::function<std::unique_ptr<TestBackend>(asio::any_io_executor executor)> create;
};

BackendFactory embedded_backend();  // embedded_backend.cc
BackendFactory cacher_backend();    // cacher_backend.cc: the Cacher over the embedded store
BackendFactory etcd3_backend();     // etcd3_backend.cc: the etcd v3 store on a real etcd
BackendFactory converting_backend();  // converting_backend.cc: the version-conversion layer over the embedded store
BackendFactory encrypting_backend();  // encrypting_backend.cc: encryption at rest (AES-GCM) over the embedded store

inline std::vector<BackendFactory> all_backends() {
  return {
      embedded_backend(),
      cacher_backend(),
      etcd3_backend(),
      converting_backend(),
      encrypting_backend(),
  };
}

}  // namespace kapi::storage::conformance
