#include "storage/shared_object.h"

#include <cstring>
#include <new>

namespace kapi::storage {
namespace {

// Allocates what std::allocate_shared asks for with `extra` bytes after it, and says where those start: the
// shared pointer's block and the bytes it owns become one allocation, freed together.
template <class T>
struct TrailingBytesAllocator {
  using value_type = T;

  TrailingBytesAllocator(std::size_t extra, char** trailing) : extra(extra), trailing(trailing) {}
  template <class U>
  TrailingBytesAllocator(const TrailingBytesAllocator<U>& other)  // NOLINT(google-explicit-constructor): rebinding
      : extra(other.extra), trailing(other.trailing) {}

  T* allocate(std::size_t n) {
    const std::size_t size = n * sizeof(T);
    auto* block = static_cast<char*>(::operator new(size + extra));
    *trailing = block + size;
    return reinterpret_cast<T*>(block);
  }
  void deallocate(T* block, std::size_t n) { ::operator delete(block, n * sizeof(T) + extra); }

  template <class U>
  bool operator==(const TrailingBytesAllocator<U>& other) const {
    return extra == other.extra;
  }

  std::size_t extra;
  char** trailing;  // where allocate() reports the extra bytes; read only by share() below
};

}  // namespace

ObjectRef share(const ObjectView& object) {
  char* bytes = nullptr;
  auto shared = std::allocate_shared<CachedObject>(
      TrailingBytesAllocator<CachedObject>(object.key.size() + object.value.size(), &bytes));
  if (!object.key.empty()) std::memcpy(bytes, object.key.data(), object.key.size());
  if (!object.value.empty()) std::memcpy(bytes + object.key.size(), object.value.data(), object.value.size());
  shared->key = {bytes, object.key.size()};
  shared->value = {bytes + object.key.size(), object.value.size()};
  shared->create_revision = object.create_revision;
  shared->mod_revision = object.mod_revision;
  shared->lease = object.lease;
  return shared;
}

}  // namespace kapi::storage
