#include "server/audit/log_backend.h"

#include "tests/support/gunzip.h"
#include "tests/unit/support/recording_writer.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kapi::audit::log_backend_test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono;

class AuditLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kapi-audit-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  static Event event(std::string id) {
    Event event;
    event.level = Level::Metadata;
    event.audit_id = std::move(id);
    event.verb = "get";
    return event;
  }

  fs::path dir_;
  metrics::Registry metrics_;
  base::Logger logger_{-1};
};

TEST_F(AuditLogTest, BackupNameAsLumberjack) {
  auto time = system_clock::time_point(milliseconds(1700000000123));
  EXPECT_EQ(RotatingFile::backup_name("/var/log/audit.log", time), "/var/log/audit-2023-11-14T22-13-20.123.log");
  EXPECT_EQ(RotatingFile::backup_name("/var/log/audit", time), "/var/log/audit-2023-11-14T22-13-20.123");
}

TEST_F(AuditLogTest, RotatesBySizeAndKeepsMaxBackups) {
  fs::create_directories(dir_);
  std::int64_t clock_ms = 1700000000000;
  RotationOptions options;
  options.path = dir_ / "audit.log";
  options.max_bytes = 10;
  options.max_backups = 2;
  options.now = [&clock_ms] { return system_clock::time_point(milliseconds(clock_ms += 1000)); };
  RotatingFile file(options);
  file.write("aaaa\n");
  file.write("bbbb\n");  // exactly 10: still fits
  file.write("cccc\n");  // would be 15: rotates first
  file.wait_for_backups();
  EXPECT_EQ(read(dir_ / "audit.log"), "cccc\n");
  EXPECT_EQ(files(), (std::vector<std::string>{"audit-2023-11-14T22-13-21.000.log", "audit.log"}));
  EXPECT_EQ(read(dir_ / "audit-2023-11-14T22-13-21.000.log"), "aaaa\nbbbb\n");
  file.write("dddd\n");
  file.write("eeee\n");  // rotates: second backup
  file.write("ffff\n");
  file.write("gggg\n");  // rotates: third backup, the oldest is removed
  file.wait_for_backups();
  EXPECT_EQ(files(), (std::vector<std::string>{"audit-2023-11-14T22-13-22.000.log", "audit-2023-11-14T22-13-23.000.log",
                                               "audit.log"}));
  EXPECT_EQ(read(dir_ / "audit.log"), "gggg\n");
  EXPECT_THROW(file.write(std::string(11, 'x')), std::length_error);
}

// --audit-log-compress: backups become <backup>.gz, and a backup and its .gz count once against max_backups.
TEST_F(AuditLogTest, CompressedBackupsAreGzippedAndCountedOnce) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "audit-2023-11-14T22-13-10.000.log.gz") << "older, already compressed";
  std::ofstream(dir_ / "audit-2023-11-14T22-13-10.000.log") << "its uncompressed twin";
  std::int64_t clock_ms = 1700000000000;
  RotationOptions options;
  options.path = dir_ / "audit.log";
  options.max_bytes = 10;
  options.max_backups = 2;
  options.compress = true;
  options.now = [&clock_ms] { return system_clock::time_point(milliseconds(clock_ms += 1000)); };
  RotatingFile file(options);
  file.write("aaaa\n");
  file.write("bbbb\n");
  file.write("cccc\n");  // rotates: the new backup is compressed, the twins count as one
  file.wait_for_backups();
  EXPECT_EQ(files(), (std::vector<std::string>{"audit-2023-11-14T22-13-10.000.log.gz",
                                               "audit-2023-11-14T22-13-21.000.log.gz", "audit.log"}));
  EXPECT_EQ(test_support::gunzip(read(dir_ / "audit-2023-11-14T22-13-21.000.log.gz")), "aaaa\nbbbb\n");
  file.write("dddd\n");
  file.write("eeee\n");  // a third backup: the oldest goes
  file.wait_for_backups();
  EXPECT_EQ(files(), (std::vector<std::string>{"audit-2023-11-14T22-13-21.000.log.gz",
                                               "audit-2023-11-14T22-13-22.000.log.gz", "audit.log"}));
}

TEST_F(AuditLogTest, MaxAgeRemovesOldBackupsAndExistingFileIsAppended) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "audit-2020-01-01T00-00-00.000.log") << "old\n";
  std::ofstream(dir_ / "audit-2023-11-14T00-00-00.000.log") << "recent\n";
  std::ofstream(dir_ / "audit.log") << "kept\n";
  RotationOptions options;
  options.path = dir_ / "audit.log";
  options.max_bytes = 1000;
  options.max_age_days = 30;
  options.now = [] { return system_clock::time_point(milliseconds(1700000000000)); };
  RotatingFile file(options);
  file.write("more\n");
  file.wait_for_backups();
  EXPECT_EQ(read(dir_ / "audit.log"), "kept\nmore\n");
  EXPECT_EQ(files(), (std::vector<std::string>{"audit-2023-11-14T00-00-00.000.log", "audit.log"}));
}

TEST_F(AuditLogTest, WritesOneJsonLinePerEventBeforeItReturns) {
  LogBackendOptions options;
  options.path = dir_ / "sub" / "audit.log";
  LogBackend backend(options, PluginErrors(metrics_, logger_));
  EXPECT_TRUE(fs::exists(options.path));  // created at start-up, as kube's ensureLogFile
  EXPECT_EQ(fs::status(options.path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  std::vector<Event> events;
  for (int i = 0; i < 100; ++i) events.push_back(event("e" + std::to_string(i)));
  EXPECT_TRUE(test_support::run_sync(backend.process_events(std::move(events))));
  std::string text = read(options.path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 100);
  EXPECT_TRUE(text.starts_with(R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"e0",)")) << text;
  EXPECT_NE(text.find(R"("auditID":"e99")"), std::string::npos);
}

TEST_F(AuditLogTest, TheLegacyFormatIsOneLineOfText) {
  LogBackendOptions options;
  options.path = dir_ / "audit.log";
  options.format = LogFormat::Legacy;
  LogBackend backend(options, PluginErrors(metrics_, logger_));
  Event received = event("8e2f1c3a");
  received.request_received_timestamp = system_clock::time_point(microseconds(1700000000123400));
  received.source_ips = {"10.0.0.7"};
  received.user = {"jane", "1001", {"devs", "system:authenticated"}, {}};
  received.user_agent = "kubectl/v1.32.3";
  received.request_uri = "/api/v1/namespaces/default/configmaps/settings";
  received.object_ref = ObjectReference{.resource = "configmaps", .namespace_ = "default", .name = "settings"};
  Event completed = received;
  completed.stage = Stage::ResponseComplete;
  completed.response_status = ResponseStatus{.code = 200};
  completed.impersonated_user = request::UserInfo{"bob", "", {"system:authenticated"}, {}};
  EXPECT_TRUE(test_support::run_sync(backend.process_events({received, completed})));
  EXPECT_EQ(read(options.path),
            "2023-11-14T22:13:20.1234Z AUDIT: id=\"8e2f1c3a\" stage=\"RequestReceived\" ip=\"10.0.0.7\" method=\"get\" "
            "user=\"jane\" groups=\"\\\"devs\\\",\\\"system:authenticated\\\"\" as=\"<self>\" asgroups=\"<lookup>\" "
            "user-agent=\"kubectl/v1.32.3\" namespace=\"default\" uri=\"/api/v1/namespaces/default/configmaps/settings\" "
            "response=\"<deferred>\"\n"
            "2023-11-14T22:13:20.1234Z AUDIT: id=\"8e2f1c3a\" stage=\"ResponseComplete\" ip=\"10.0.0.7\" method=\"get\" "
            "user=\"jane\" groups=\"\\\"devs\\\",\\\"system:authenticated\\\"\" as=\"bob\" "
            "asgroups=\"\\\"system:authenticated\\\"\" user-agent=\"kubectl/v1.32.3\" namespace=\"default\" "
            "uri=\"/api/v1/namespaces/default/configmaps/settings\" response=\"200\"\n");
}

// A blocking-strict log passes on what the device refused; the others log it and count it.
TEST_F(AuditLogTest, AFailedWriteIsCountedAndAnsweredFalse) {
  LogBackendOptions options;
  options.path = "/dev/full";
  LogBackend backend(options, PluginErrors(metrics_, logger_));
  EXPECT_FALSE(test_support::run_sync(backend.process_events({event("e0"), event("e1")})));
  EXPECT_EQ(metrics_.audit_errors.value({"log"}), 2);
}

TEST_F(AuditLogTest, LogRotatesThroughTheBackend) {
  LogBackendOptions options;
  options.path = dir_ / "audit.log";
  options.max_bytes = 400;  // about two events a file
  options.max_backups = 1;
  std::int64_t clock_ms = 1700000000000;
  options.now = [&clock_ms] { return system_clock::time_point(milliseconds(clock_ms += 1)); };
  {
    LogBackend backend(options, PluginErrors(metrics_, logger_));
    for (int i = 0; i < 10; ++i) test_support::run_sync(backend.process_events({event("e" + std::to_string(i))}));
  }  // the backups are settled once the backend is gone
  auto names = files();
  ASSERT_EQ(names.size(), 2u);  // the file and one backup
  EXPECT_TRUE(names[0].starts_with("audit-2023-11-14T22-13-20.")) << names[0];
  EXPECT_NE(read(dir_ / "audit.log").find(R"("auditID":"e9")"), std::string::npos);
  EXPECT_EQ(metrics_.audit_errors.value({"log"}), 0);
}

}  // namespace
}  // namespace kapi::audit::log_backend_test
