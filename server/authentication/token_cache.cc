#include "server/authentication/token_cache.h"

#include "base/race.h"
#include "base/sleep.h"
#include "base/stop_signal.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/this_coro.hpp>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <array>
#include <mutex>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace kapi::authentication {
namespace {

using Clock = TokenCacheOptions::Clock;

constexpr std::size_t kStripes = 32;  // newStripedCache(32, ...)

// hash/fnv's New32 (FNV-1, not FNV-1a) over the key, to pick its stripe.
std::uint32_t fnv1_32(std::string_view data) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : data) {
    hash *= 16777619u;
    hash ^= c;
  }
  return hash;
}

// utilcache.Expiring: entries dropped once expired, the expired ones collected whenever one is stored.
class ExpiringStripe {
 public:
  std::optional<Result> get(const std::string& key, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    auto found = entries_.find(key);
    if (found == entries_.end() || now >= found->second.expiry) return std::nullopt;
    return found->second.record;
  }

  void set(const std::string& key, const Result& record, Clock::time_point expiry, Clock::time_point now) {
    std::lock_guard lock(mutex_);
    collect(now);
    const std::uint64_t generation = ++generation_;
    entries_[key] = Entry{record, expiry, generation};
    heap_.push(HeapEntry{expiry, key, generation});
  }

 private:
  struct Entry {
    Result record;
    Clock::time_point expiry;
    std::uint64_t generation;
  };
  struct HeapEntry {
    Clock::time_point expiry;
    std::string key;
    std::uint64_t generation;
    bool operator>(const HeapEntry& other) const { return expiry > other.expiry; }
  };

  void collect(Clock::time_point now) {
    while (!heap_.empty() && now >= heap_.top().expiry) {
      auto found = entries_.find(heap_.top().key);
      // A key stored again since has a newer generation: that entry is not this one's to drop.
      if (found != entries_.end() && found->second.generation == heap_.top().generation) entries_.erase(found);
      heap_.pop();
    }
  }

  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<>> heap_;
  std::uint64_t generation_ = 0;
};

// One shared call of the inner authenticator; its result is written before `done` is requested.
struct Flight {
  base::StopSignal done;
  Result result;
};

// What the callers of the cache see of a record (kube's AuthenticateToken): no user unless one was found.
Result as_answer(Result record) {
  if (record.outcome == Result::Outcome::Authenticated) return record;
  return record.outcome == Result::Outcome::Failed ? Result::failed(std::move(record.error)) : Result::not_applicable();
}

// stats.go records request latency in whole milliseconds.
double whole_milliseconds_in_seconds(Clock::duration elapsed) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()) / 1000;
}

}  // namespace

struct CachedTokenAuthenticator::State {
  std::shared_ptr<const TokenAuthenticator> inner;
  TokenCacheOptions options;
  EVP_MAC* hmac = nullptr;
  EVP_MAC_CTX* keyed = nullptr;  // HMAC-SHA256 under the random key; duplicated for each key computed
  std::array<ExpiringStripe, kStripes> stripes;
  std::mutex flights_mutex;
  std::unordered_map<std::string, std::shared_ptr<Flight>> flights;

  ~State() {
    EVP_MAC_CTX_free(keyed);
    EVP_MAC_free(hmac);
  }

  ExpiringStripe& stripe(const std::string& key) { return stripes[fnv1_32(key) % kStripes]; }

  // kube's keyFunc: the token, the number of audiences and each audience, every length a big-endian uint32 so that
  // no two inputs hash alike.
  std::string key_of(std::string_view token, const Audiences& audiences) const {
    EVP_MAC_CTX* context = EVP_MAC_CTX_dup(keyed);
    if (!context) throw std::bad_alloc();
    auto write_length = [&](std::size_t length) {
      const unsigned char bytes[4] = {static_cast<unsigned char>(length >> 24), static_cast<unsigned char>(length >> 16),
                                      static_cast<unsigned char>(length >> 8), static_cast<unsigned char>(length)};
      EVP_MAC_update(context, bytes, sizeof bytes);
    };
    auto write_string = [&](std::string_view text) {
      write_length(text.size());
      EVP_MAC_update(context, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    };
    write_string(token);
    write_length(audiences.size());
    for (const auto& audience : audiences) write_string(audience);
    std::string key(EVP_MAX_MD_SIZE, '\0');
    std::size_t length = 0;
    EVP_MAC_final(context, reinterpret_cast<unsigned char*>(key.data()), &length, key.size());
    EVP_MAC_CTX_free(context);
    key.resize(length);
    return key;
  }

  void record_request(const char* status, Clock::time_point start) const {
    if (!options.metrics) return;
    options.metrics->token_cache_requests.inc({status});
    options.metrics->token_cache_request_duration.observe({status},
                                                          whole_milliseconds_in_seconds(Clock::now() - start));
  }
  void add_active(const char* status, double delta) const {
    if (options.metrics) options.metrics->token_cache_active_fetches.add({status}, delta);
  }
};

namespace {

using CacheState = CachedTokenAuthenticator::State;

// The inner authenticator, given the shared lookup's time at most (kube's context.WithTimeout(sharedLookupTimeout)).
asio::awaitable<Result> look_up(std::shared_ptr<CacheState> state, const std::string& token, const Audiences& audiences) {
  Result result;
  auto asking = [&]() -> asio::awaitable<void> {
    auto authenticating = state->inner->authenticate_token(token, audiences);
    result = co_await std::move(authenticating);
  };
  auto racing = base::race(asking(), base::sleep_for(state->options.shared_lookup_timeout));
  const int winner = co_await std::move(racing);
  if (winner == 1) co_return Result::failed("context deadline exceeded");
  co_return result;
}

// One flight: the cache looked at again (it may have been filled since the caller looked), else the inner
// authenticator asked and its answer stored as the options say; then every waiter woken.
asio::awaitable<void> fly(std::shared_ptr<CacheState> state, std::shared_ptr<Flight> flight, std::string key,
                          std::string token, Audiences audiences) {
  const TokenCacheOptions& options = state->options;
  state->add_active("in_flight", 1);
  Result record;
  if (auto cached = state->stripe(key).get(key, options.now())) {
    record = std::move(*cached);
  } else {
    bool crashed = false;
    try {
      auto looking = look_up(state, token, audiences);
      record = co_await std::move(looking);
    } catch (const std::exception&) {
      crashed = true;  // kube's recover(): errAuthnCrash
    }
    if (crashed) record = Result::failed("Internal error occurred: authentication failed unexpectedly");
    const bool failed = record.outcome == Result::Outcome::Failed;
    const bool ok = record.outcome == Result::Outcome::Authenticated;
    if (options.cache_errors || !failed) {
      const Clock::duration ttl = ok ? options.success_ttl : options.failure_ttl;
      if (ttl > Clock::duration::zero()) {
        const auto now = options.now();
        state->stripe(key).set(key, record, now + ttl, now);
      }
    }
  }
  OPENSSL_cleanse(token.data(), token.size());
  state->add_active("in_flight", -1);
  if (options.metrics)
    options.metrics->token_cache_fetches.inc({record.outcome == Result::Outcome::Failed ? "error" : "ok"});
  {
    std::lock_guard lock(state->flights_mutex);
    if (auto found = state->flights.find(key); found != state->flights.end() && found->second == flight)
      state->flights.erase(found);
  }
  flight->result = std::move(record);
  flight->done.request();
}

}  // namespace

CachedTokenAuthenticator::CachedTokenAuthenticator(std::shared_ptr<const TokenAuthenticator> inner,
                                                   TokenCacheOptions options)
    : state_(std::make_shared<State>()) {
  state_->inner = std::move(inner);
  state_->options = std::move(options);
  // A random key per cache (kube's randomCacheKey): the keys say nothing of the tokens outside this process.
  unsigned char secret[32];
  if (RAND_bytes(secret, sizeof secret) != 1) throw std::runtime_error("cannot make the token cache's key");
  state_->hmac = EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr);
  state_->keyed = state_->hmac ? EVP_MAC_CTX_new(state_->hmac) : nullptr;
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_END};
  if (!state_->keyed || EVP_MAC_init(state_->keyed, secret, sizeof secret, params) != 1)
    throw std::runtime_error("cannot make the token cache's HMAC");
  OPENSSL_cleanse(secret, sizeof secret);
}

CachedTokenAuthenticator::~CachedTokenAuthenticator() = default;

asio::awaitable<Result> CachedTokenAuthenticator::authenticate_token(std::string_view token,
                                                                     const Audiences& audiences) const {
  const auto start = Clock::now();
  std::shared_ptr<CacheState> state = state_;
  std::string key = state->key_of(token, audiences);
  if (auto cached = state->stripe(key).get(key, state->options.now())) {
    state->record_request("hit", start);
    co_return as_answer(std::move(*cached));
  }

  // A miss: join the lookup of this key in flight, or start it.
  struct Blocked {
    const State& state;
    Clock::time_point start;
    explicit Blocked(const State& s, Clock::time_point t) : state(s), start(t) { state.add_active("blocked", 1); }
    ~Blocked() {
      state.record_request("miss", start);
      state.add_active("blocked", -1);
    }
  } blocked(*state, start);
  std::shared_ptr<Flight> flight;
  bool leader = false;
  {
    std::lock_guard lock(state->flights_mutex);
    std::shared_ptr<Flight>& slot = state->flights[key];
    if (!slot) {
      slot = std::make_shared<Flight>();
      leader = true;
    }
    flight = slot;
  }
  if (leader) {
    auto executor = co_await asio::this_coro::executor;
    asio::co_spawn(executor, fly(state, flight, key, std::string(token), audiences), asio::detached);
  }
  auto waiting = flight->done.wait();
  co_await std::move(waiting);
  // Woken without a result: this request was cancelled, the lookup goes on for the others (kube's ctx.Done()).
  if (!flight->done.requested()) co_return Result::failed("context canceled");
  co_return as_answer(flight->result);
}

}  // namespace kapi::authentication
