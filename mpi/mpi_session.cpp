#include "mpi/mpi_session.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "driver/unit_server.hpp"
#include "mpi/rank_failure.hpp"

namespace lockstep::mpi {

namespace {

// Messages: rank 0 sends kUnit (an envelope: the row, then the unit's bytes) and, at the
// end, kStop; a serving rank answers each unit with kAnswer (a status byte, then the
// answer's bytes or an error message), and before that, when the envelope asks for it, with
// kProgress every so often (the unit's progress, model/remote_lanes.hpp).
// While a dfs unit runs, rank 0 may ask for work back with kWant (it has an idle worker, or a
// lane whose rank has no work: RemoteLanes::Lending); the rank answers with kLent: a subtree
// of its unit not started yet, or nothing (empty), and rank 0 answers a subtree with
// kLentAnswer (a status byte, then the answer or an error).
constexpr int kUnit = 1;
constexpr int kAnswer = 2;
constexpr int kStop = 3;
constexpr int kProgress = 4;
constexpr int kWant = 5;
constexpr int kLent = 6;
constexpr int kLentAnswer = 7;
// After a rank had nothing to lend, rank 0 asks it again no sooner than this.
constexpr auto kAskAgain = std::chrono::milliseconds(1);
// Rank 0 asks only when a worker has been idle this long: a short wait between two of its
// own jobs is not worth a subtree the rank would have run itself moments later.
constexpr auto kIdleBeforeAsking = std::chrono::milliseconds(2);
constexpr char kOk = 0;
constexpr char kFailed = 1;

// Waiting polls with sleeps rather than blocking in MPI: a blocked MPI call spins, and on a
// machine with as many ranks as cores that spin takes a core from a rank at work. The sleep
// starts short (a unit that answers quickly is picked up quickly) and doubles up to 250 us.
// Waking often costs a VM's timer interrupts (19% of rank 0's time at a fixed 50 us); waking
// rarely leaves a rank idle after each unit it answers, which costs searches of many short
// units: on 2 ranks, mc-fib 0.85-0.95 s at 250 us against 1.21-1.27 s at 1 ms, and
// mc-four-threads-7-tso the same at both, 6.33-6.44 s (bench/README.md, "Distributed search").
constexpr auto kFirstPoll = std::chrono::microseconds(20);
constexpr auto kLongestPoll = std::chrono::microseconds(250);

// One MPI call at a time in this process (rank 0's lane threads all talk to MPI): the
// launch may not give MPI_THREAD_MULTIPLE.
std::mutex mpi_mutex;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(fmt::format("MPI: {} failed ({})", what, rc));
}

void send(const std::string& bytes, int to, int tag) {
  if (bytes.size() > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("MPI: a message over 2 GiB");
  const std::lock_guard lock(mpi_mutex);
  check(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

// A message from `from` with `tag` (or any) if one has come: its tag and bytes.
std::optional<std::pair<int, std::string>> try_receive(int from, int tag = MPI_ANY_TAG) {
  const std::lock_guard lock(mpi_mutex);
  int flag = 0;
  MPI_Status status;
  check(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
  if (flag == 0) return std::nullopt;
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  std::string bytes(static_cast<std::size_t>(count), '\0');
  check(MPI_Recv(bytes.data(), count, MPI_BYTE, from, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return std::pair{status.MPI_TAG, std::move(bytes)};
}

// Waits for a message from `from` with `tag` (or any): its tag and bytes.
std::pair<int, std::string> receive(int from, int tag = MPI_ANY_TAG) {
  for (auto wait = kFirstPoll;; wait = std::min(wait * 2, kLongestPoll)) {
    if (auto m = try_receive(from, tag)) return std::move(*m);
    std::this_thread::sleep_for(wait);
  }
}

// The envelope's header: the file, its hash and the row, each on a line.
std::string envelope(const std::string& header, const std::string& unit) {
  const auto n = static_cast<std::uint32_t>(header.size());
  std::string out(4, '\0');
  std::memcpy(out.data(), &n, 4);
  return out + header + unit;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

namespace {

// A unit's header names the file, its bytes' hash and the row; then how often the rank
// reports the unit's progress, in seconds (0: never).
std::string header_of(const scenario::ScenarioFile& file, std::size_t row) {
  return fmt::format("{}\n{}\n{}", file.path, file.sha256, row);
}

// A status byte, then the answer's bytes or the error's message.
std::string answer_of(const std::function<std::string()>& run) {
  try {
    return kOk + run();
  } catch (const std::exception& e) {
    return std::string(1, kFailed) + e.what();
  }
}

// Sends a unit to `rank` and waits for its answer, handing `progress` what the rank reports
// meanwhile, and running what it lends back through `lending` (when given) whenever this
// process has an idle thread (a worker, or a lane whose rank has no work). `lent` counts those.
std::string call_rank(int rank, const std::string& header, const std::string& unit,
                      const model::RemoteLanes::Progress* progress, const model::RemoteLanes::Lending* lending,
                      std::atomic<std::uint64_t>* lent) {
  send(envelope(fmt::format("{}\n{}", header, progress != nullptr ? progress->every_s : 0.0), unit), rank, kUnit);
  bool asked = false;  // a kWant not answered yet, which holds a claim on an idle thread here
  // The rank answers its unit without answering an ask that came too late: its claim ends too.
  struct ReleaseClaim {
    const bool& asked;
    const model::RemoteLanes::Lending* lending;
    ~ReleaseClaim() {
      if (asked) lending->release();
    }
  } const release_at_exit{asked, lending};
  std::function<std::optional<std::string>()> running;  // what the rank lent, running here
  auto ask_after = std::chrono::steady_clock::now();
  constexpr auto kBusy = std::chrono::steady_clock::time_point::max();
  auto idle_since = kBusy;  // since when this process has had an idle thread
  for (auto wait = kFirstPoll;; wait = std::min(wait * 2, kLongestPoll)) {
    if (auto m = try_receive(rank)) {
      auto& [tag, bytes] = *m;
      wait = kFirstPoll / 2;
      if (tag == kProgress) {
        if (progress != nullptr) progress->receive(bytes);
      } else if (tag == kLent) {
        if (!asked) throw std::runtime_error(fmt::format("MPI: rank {} lent a unit unasked", rank));
        if (bytes.empty()) {
          ask_after = std::chrono::steady_clock::now() + kAskAgain;
        } else {
          running = lending->start(std::move(bytes));
          if (lent != nullptr) ++*lent;
        }
        asked = false;  // after start: the unit is queued before the claim ends
        lending->release();
      } else if (tag == kAnswer && !bytes.empty()) {
        if (running) throw std::runtime_error(fmt::format("MPI: rank {} answered before the unit it lent", rank));
        if (bytes.front() != kOk) throw std::runtime_error(fmt::format("rank {}: {}", rank, bytes.substr(1)));
        return bytes.substr(1);
      } else {
        throw std::runtime_error(fmt::format("MPI: rank {} sent no answer", rank));
      }
      continue;
    }
    if (running) {
      std::optional<std::string> done;
      const std::string answer = answer_of([&] {
        done = running();
        return done.value_or("");
      });
      if (done || answer.front() != kOk) {
        send(answer, rank, kLentAnswer);
        running = nullptr;
        wait = kFirstPoll / 2;
        continue;
      }
    } else if (lending != nullptr && !asked) {
      const auto now = std::chrono::steady_clock::now();
      if (!lending->idle()) {
        idle_since = kBusy;
      } else if (idle_since == kBusy) {
        idle_since = now;
      } else if (now - idle_since >= kIdleBeforeAsking && now >= ask_after && lending->claim()) {
        asked = true;
        send("", rank, kWant);
      }
    }
    std::this_thread::sleep_for(wait);
  }
}

}  // namespace

class Session::Lanes final : public model::RemoteLanes {
 public:
  explicit Lanes(int ranks) : ranks_(ranks) {}
  std::size_t size() const override { return static_cast<std::size_t>(ranks_ - 1); }
  std::string call(std::size_t lane, const std::string& unit, const Progress* progress,
                   const Lending* lending) override {
    ++units_;
    if (progress == nullptr) return call_rank(static_cast<int>(lane) + 1, header_, unit, nullptr, lending, &lent_);
    const Progress counted{progress->every_s, [this, progress](const std::string& units) {
                             ++reports_;
                             progress->receive(units);
                           }};
    return call_rank(static_cast<int>(lane) + 1, header_, unit, &counted, lending, &lent_);
  }
  std::uint64_t units() const override { return units_; }
  std::uint64_t progress_reports() const override { return reports_; }
  std::uint64_t units_lent_back() const override { return lent_; }
  void set_row(const scenario::ScenarioFile& file, std::size_t row) {
    header_ = header_of(file, row);
    units_ = 0;
    reports_ = 0;
    lent_ = 0;
  }

 private:
  int ranks_;
  std::atomic<std::uint64_t> units_{0};
  std::atomic<std::uint64_t> reports_{0};
  std::atomic<std::uint64_t> lent_{0};
  std::string header_;
};

Session::Session(int& argc, char**& argv) {
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error("MPI: this MPI library cannot be called from several threads, one at a time");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  lanes_ = std::make_unique<Lanes>(size_);
  install_rank_failure_reports(rank_, size_);
}

Session::~Session() {
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r) {
      try {
        send("", r, kStop);
      } catch (...) {  // a destructor: the ranks end with the job anyway
      }
    }
  }
  MPI_Finalize();
}

model::RemoteLanes* Session::for_row(const scenario::ScenarioFile& file, std::size_t row) {
  if (size_ <= 1) return nullptr;
  lanes_->set_row(file, row);
  return lanes_.get();
}

std::string Session::call(std::size_t lane, const scenario::ScenarioFile& file, std::size_t row,
                          const std::string& unit) {
  return call_rank(static_cast<int>(lane) + 1, header_of(file, row), unit, nullptr, nullptr, nullptr);
}

int Session::serve(unsigned workers, std::uint64_t min_piece_runs) {
  driver::UnitServer server(workers, min_piece_runs);
  // A dfs unit's lending thread (model/remote_lanes.hpp, LendBack): rank 0's asks, and the
  // subtrees it sends back. An ask left over from a unit already answered is dropped below.
  const model::LendBack lend_back{[] { return try_receive(0, kWant).has_value(); }, [] { send("", 0, kLent); },
                                  [](const std::string& unit) {
                                    send(unit, 0, kLent);
                                    const auto [tag, bytes] = receive(0, kLentAnswer);
                                    if (bytes.empty())
                                      throw std::runtime_error("MPI: rank 0 answered a lent unit with nothing");
                                    if (bytes.front() != kOk) throw std::runtime_error("rank 0: " + bytes.substr(1));
                                    return bytes.substr(1);
                                  }};
  int code = 0;
  for (;;) {
    auto [tag, bytes] = receive(0);
    if (tag == kStop) return code;
    if (tag != kUnit) continue;
    const std::string answer = answer_of([&] {
      if (bytes.size() < 4) throw std::runtime_error("a unit without its envelope");
      std::uint32_t n = 0;
      std::memcpy(&n, bytes.data(), 4);
      if (bytes.size() < 4 + std::size_t{n}) throw std::runtime_error("a unit whose envelope is cut short");
      const std::string header = bytes.substr(4, n);
      const std::size_t a = header.find('\n');
      const std::size_t b = header.find('\n', a + 1);
      const std::size_t c = header.find('\n', b + 1);
      if (a == std::string::npos || b == std::string::npos || c == std::string::npos)
        throw std::runtime_error("a unit's envelope is malformed");
      // Reported from the unit's reporting thread while this one runs the unit (the MPI
      // calls are serialized by mpi_mutex), always before the answer.
      const model::RemoteLanes::Progress progress{std::stod(header.substr(c + 1)),
                                                  [](const std::string& units) { send(units, 0, kProgress); }};
      return server.serve(header.substr(0, a), header.substr(a + 1, b - a - 1),
                          std::stoull(header.substr(b + 1, c - b - 1)), bytes.substr(4 + n),
                          progress.every_s > 0 ? &progress : nullptr, &lend_back);
    });
    if (answer.front() == kFailed) code = 3;
    send(answer, 0, kAnswer);
  }
}

}  // namespace lockstep::mpi
