#include "model/index_set.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/strings.h"

namespace rota::model {

Result<IndexSet> IndexSet::Parse(std::string_view text) {
  IndexSet set;
  auto bad = [&] { return InvalidArgument(fmt::format("invalid index list \"{}\"", text)); };
  if (Trim(text).empty()) return bad();
  for (std::string_view piece : Split(text, ',')) {
    uint64_t step = 1;
    if (size_t colon = piece.find(':'); colon != std::string_view::npos) {
      std::optional<uint64_t> s = ParseUint(piece.substr(colon + 1));
      if (!s || *s == 0) return bad();
      step = *s;
      piece = piece.substr(0, colon);
    }
    size_t dash = piece.find('-');
    std::optional<uint64_t> lo = ParseUint(piece.substr(0, dash));
    std::optional<uint64_t> hi =
        dash == std::string_view::npos ? lo : ParseUint(piece.substr(dash + 1));
    if (!lo || !hi || *lo > *hi || *hi > UINT32_MAX - 1) return bad();
    if (step == 1) {
      set.ranges_.push_back({static_cast<uint32_t>(*lo), static_cast<uint32_t>(*hi)});
    } else {
      for (uint64_t v = *lo; v <= *hi; v += step) set.Insert(static_cast<uint32_t>(v));
    }
  }
  // Normalise: sort and merge overlapping or adjacent ranges.
  std::sort(set.ranges_.begin(), set.ranges_.end());
  std::vector<std::pair<uint32_t, uint32_t>> merged;
  for (const auto& r : set.ranges_) {
    if (!merged.empty() && static_cast<uint64_t>(merged.back().second) + 1 >= r.first) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  set.ranges_ = std::move(merged);
  return set;
}

void IndexSet::Insert(uint32_t v) {
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), std::make_pair(v, v));
  if (it != ranges_.begin() && std::prev(it)->second >= v) return;
  if (it != ranges_.end() && it->first == v) return;
  bool joins_prev = it != ranges_.begin() && std::prev(it)->second + 1 == v;
  bool joins_next = it != ranges_.end() && it->first == v + 1;
  if (joins_prev && joins_next) {
    std::prev(it)->second = it->second;
    ranges_.erase(it);
  } else if (joins_prev) {
    std::prev(it)->second = v;
  } else if (joins_next) {
    it->first = v;
  } else {
    ranges_.insert(it, {v, v});
  }
}

bool IndexSet::Contains(uint32_t v) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(v, UINT32_MAX));
  return it != ranges_.begin() && std::prev(it)->second >= v && std::prev(it)->first <= v;
}

std::optional<uint32_t> IndexSet::PopFirst() {
  if (ranges_.empty()) return std::nullopt;
  uint32_t v = ranges_.front().first;
  if (ranges_.front().first == ranges_.front().second) {
    ranges_.erase(ranges_.begin());
  } else {
    ++ranges_.front().first;
  }
  return v;
}

bool IndexSet::Erase(uint32_t v) {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(v, UINT32_MAX));
  if (it == ranges_.begin()) return false;
  --it;
  if (v < it->first || v > it->second) return false;
  if (it->first == it->second) {
    ranges_.erase(it);
  } else if (v == it->first) {
    ++it->first;
  } else if (v == it->second) {
    --it->second;
  } else {
    uint32_t hi = it->second;
    it->second = v - 1;
    ranges_.insert(std::next(it), {v + 1, hi});
  }
  return true;
}

uint64_t IndexSet::size() const {
  uint64_t n = 0;
  for (const auto& r : ranges_) n += static_cast<uint64_t>(r.second) - r.first + 1;
  return n;
}

std::optional<uint32_t> IndexSet::first() const {
  if (ranges_.empty()) return std::nullopt;
  return ranges_.front().first;
}

std::optional<uint32_t> IndexSet::last() const {
  if (ranges_.empty()) return std::nullopt;
  return ranges_.back().second;
}

std::string IndexSet::ToString() const {
  std::string out;
  for (const auto& r : ranges_) {
    if (!out.empty()) out += ',';
    out += std::to_string(r.first);
    if (r.second != r.first) out += '-' + std::to_string(r.second);
  }
  return out;
}

Result<ArraySpec> ParseArraySpec(std::string_view text) {
  ArraySpec spec;
  std::string_view list = text;
  if (size_t pct = text.find('%'); pct != std::string_view::npos) {
    std::optional<uint64_t> limit = ParseUint(text.substr(pct + 1));
    if (!limit || *limit > UINT32_MAX) {
      return InvalidArgument(fmt::format("invalid job array specification \"{}\"", text));
    }
    spec.max_running = static_cast<uint32_t>(*limit);
    list = text.substr(0, pct);
  }
  Result<IndexSet> tasks = IndexSet::Parse(list);
  if (!tasks.ok())
    return InvalidArgument(fmt::format("invalid job array specification \"{}\"", text));
  spec.tasks = std::move(tasks).value();
  return spec;
}

}  // namespace rota::model
