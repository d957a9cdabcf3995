#include "tests/support/linearizability/watch_recorder.h"

#include "tests/support/linearizability/configmap_client.h"

#include <sys/socket.h>

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::test_support::linearizability {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

}  // namespace

WatchRecorder::WatchRecorder(const KapiEndpoint& endpoint, ClientSettings settings, const Operation& start,
                             ConfigMapClient relister)
    : endpoint_(endpoint), settings_(std::move(settings)), relister_(std::move(relister)) {
  segments_.push_back({start.revision, start.items, {}, start.revision});
  thread_ = std::thread([this] { run(); });
}

WatchRecorder::~WatchRecorder() {
  if (thread_.joinable()) stop();
}

bool WatchRecorder::wait_until_covered(Revision revision, Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return changed_.wait_until(lock, deadline, [&] { return segments_.back().through >= revision; });
}

std::vector<WatchSegment> WatchRecorder::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (stream_fd_ >= 0) ::shutdown(stream_fd_, SHUT_RDWR);  // the blocked read ends at once
  }
  changed_.notify_all();
  thread_.join();
  return segments_;
}

void WatchRecorder::run() {
  for (;;) {
    Revision from = 0;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      from = segments_.back().through;
    }
    const std::optional<KapiEndpoint::Address> address = endpoint_.wait_until_up(Clock::now() + 200ms);
    if (!address) continue;
    bool gone = false;
    try {
      gone = !follow(*address, from);
    } catch (const std::exception&) {
      wait_a_moment();  // kapi went away mid-stream, or is not listening yet: resume from the last revision seen
      continue;
    }
    if (gone) relist();
  }
}

bool WatchRecorder::follow(const KapiEndpoint::Address& address, Revision from) {
  HttpConnection connection(address.port, address.tls, settings_.client_timeout);
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return true;
    stream_fd_ = connection.native_handle();
  }
  // Unregistered before the connection closes, so that stop() never shuts down a descriptor reused since.
  struct Unregister {
    WatchRecorder& recorder;
    ~Unregister() {
      std::lock_guard lock(recorder.mutex_);
      recorder.stream_fd_ = -1;
    }
  } unregister{*this};

  connection.send("GET /api/v1/namespaces/" + settings_.namespace_ +
                  "/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=30&labelSelector=linearizability%3D" +
                  settings_.label + "&resourceVersion=" + std::to_string(from) + " HTTP/1.1\r\nHost: kapi\r\n\r\n");
  HttpResponse head = connection.read_head(settings_.client_timeout);
  if (head.status == 410) return false;
  if (head.status != 200) {
    connection.read_body(head);
    wait_a_moment();
    return true;
  }
  std::string buffer;
  bool gone = false;
  while (std::optional<std::string> chunk = connection.read_chunk(60s)) {
    buffer += *chunk;
    for (std::size_t end = buffer.find('\n'); end != std::string::npos; end = buffer.find('\n')) {
      record(buffer.substr(0, end), gone);
      buffer.erase(0, end + 1);
    }
    if (gone) return false;
  }
  return true;
}

void WatchRecorder::record(const std::string& line, bool& gone) {
  const json::object event = json::parse(line).as_object();
  const std::string type(event.at("type").as_string());
  const json::object& object = event.at("object").as_object();
  if (type == "ERROR") {
    const json::value* code = object.if_contains("code");
    gone = gone || (code && code->is_int64() && code->as_int64() == 410);
    return;
  }
  const Revision revision = std::stoll(string_at(object, "metadata", "resourceVersion"));
  std::lock_guard lock(mutex_);
  WatchSegment& segment = segments_.back();
  if (type != "BOOKMARK") {
    const EventType kind = type == "ADDED"      ? EventType::Added
                           : type == "MODIFIED" ? EventType::Modified
                                                : EventType::Deleted;
    segment.events.push_back(
        {kind, string_at(object, "metadata", "name"), Versioned{string_at(object, "data", "v"), revision}});
  }
  // Never lowered: an event out of order must show up as one, not shrink what the watch claims to cover.
  segment.through = std::max(segment.through, revision);
  changed_.notify_all();
}

void WatchRecorder::relist() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    const std::optional<Operation> listed = relister_.list();
    if (listed && listed->outcome == Outcome::Ok) {
      std::lock_guard lock(mutex_);
      segments_.push_back({listed->revision, listed->items, {}, listed->revision});
      changed_.notify_all();
      return;
    }
    wait_a_moment();
  }
}

void WatchRecorder::wait_a_moment() {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, 50ms, [&] { return stopping_; });
}

}  // namespace kapi::test_support::linearizability
