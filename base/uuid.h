#pragma once
// Random (version 4) UUIDs, as github.com/google/uuid's New writes them: object UIDs, Audit-IDs.
#include <string>

namespace kapi::base {

// "0b6bd7a4-3d5e-4b21-9d2f-5c4a8e1f7a90": 122 bits from OpenSSL's CSPRNG. Throws std::runtime_error when OpenSSL
// has no randomness to give.
std::string new_uuid();

}  // namespace kapi::base
