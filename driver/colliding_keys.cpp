#include "driver/colliding_keys.hpp"

#include <stdexcept>

#include "axiomatic/futex_keys.hpp"
#include "core/futex/futex_designs.hpp"

namespace lockstep::driver {

CollidingKeys find_colliding_keys(const CollidingKeysRequest& request) {
  const auto design = futex::named_design(request.design);
  if (!design) throw std::invalid_argument("no futex design named '" + request.design + "'");
  axiomatic::KeyQuery q;
  q.lo = request.lo;
  q.hi = request.hi;
  q.config = design->config;
  q.config.key = request.shared ? futex::KeyKind::shared_key : futex::KeyKind::private_key;
  q.machine = {request.cpus, request.nodes, request.threads == 0 ? request.cpus : request.threads};
  q.count = request.count;
  const axiomatic::KeyAnswer a = axiomatic::colliding_keys(q);
  CollidingKeys found;
  found.design_text = futex::describe(q.config);
  found.addresses = a.addresses;
  found.bucket_table = a.bucket.table;
  found.bucket_index = a.bucket.index;
  found.tables = a.tables;
  found.buckets_per_table = a.buckets_per_table;
  found.threads = q.machine.threads;
  found.verified = a.verified;
  found.solver_s = a.seconds;
  return found;
}

nlohmann::ordered_json colliding_keys_json(const CollidingKeysRequest& request, const CollidingKeys& found) {
  nlohmann::ordered_json j;
  j["design"] = request.design;
  j["key"] = request.shared ? "shared" : "private";
  j["cpus"] = request.cpus;
  j["nodes"] = request.nodes;
  j["threads"] = found.threads;
  j["range"] = {request.lo, request.hi};
  j["tables"] = found.tables;
  j["buckets_per_table"] = found.buckets_per_table;
  j["bucket"] = {{"table", found.bucket_table}, {"index", found.bucket_index}};
  j["addresses"] = found.addresses;
  j["verified"] = found.verified;
  j["solver_s"] = found.solver_s;
  return j;
}

}  // namespace lockstep::driver
