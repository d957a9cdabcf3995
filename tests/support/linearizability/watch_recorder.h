#pragma once
// A watch of a history's ConfigMaps, recorded beside the history for check_watch (checker.h). It runs on a thread
// of its own as client-go's reflector does: it resumes from the last resourceVersion it saw (an event's or a
// bookmark's) whenever its stream ends, and when kapi answers 410 Gone it lists again and starts a new segment
// from that list (whose LIST joins the history).
#include "tests/support/linearizability/configmap_client.h"
#include "tests/support/linearizability/history.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace kapi::test_support::linearizability {

class WatchRecorder {
 public:
  // Watches from `start`, an Ok LIST of the history, its items the state the first segment starts from.
  // `relister` lists again after a 410.
  WatchRecorder(const KapiEndpoint& endpoint, ClientSettings settings, const Operation& start,
                ConfigMapClient relister);
  ~WatchRecorder();
  WatchRecorder(const WatchRecorder&) = delete;
  WatchRecorder& operator=(const WatchRecorder&) = delete;

  // Waits until the watch has delivered every change up to `revision`; false at `deadline`.
  bool wait_until_covered(Revision revision, Clock::time_point deadline);
  // Ends the watch (cutting the stream it is reading) and returns what it saw.
  std::vector<WatchSegment> stop();

 private:
  void run();
  // Reads one watch stream from `from`; false when kapi answered 410 Gone (the watch must list again).
  bool follow(const KapiEndpoint::Address& address, Revision from);
  void relist();
  void record(const std::string& line, bool& gone);
  void wait_a_moment();

  const KapiEndpoint& endpoint_;
  const ClientSettings settings_;
  ConfigMapClient relister_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<WatchSegment> segments_;
  bool stopping_ = false;
  int stream_fd_ = -1;  // the socket of the stream being read, which stop() shuts down

  std::thread thread_;  // last: it starts once everything it uses is there
};

}  // namespace kapi::test_support::linearizability
