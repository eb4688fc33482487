// libFuzzer target for the AOT program decoder. The input is either raw program words (first
// byte even) or edits of a real program with a step of each kind (first byte odd: then 10-byte
// records, a word index and the value XORed into it, so that mutations start deep in valid
// programs). The words are sealed with their checksum unless the first byte's bit 1 is set, so
// that the validator, not only the checksum, meets them; they are decoded against that program's
// tables. Any outcome but a jx::Error or a valid program (a crash, a sanitizer report, another
// exception) is a finding.
//
// Built with JX_FUZZ=ON (tests/fuzz/CMakeLists.txt; clang >= 19, as clang-14 rejects some of
// runtime/aot_format.cpp's CPU feature names).
#include <jx/error.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "aot/program_fixtures.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  namespace rt = jx::runtime;
  static const rt::Program program = aot_test::every_kind_of_step();
  static const aot_test::ObjectTables tables =
      aot_test::tables_of(program, aot_test::every_kind_signature);
  static const std::vector<int64_t> valid =
      rt::aot::encode(program, aot_test::every_kind_signature, 0);
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  ++data;
  --size;
  std::vector<int64_t> words;
  if (mode & 1) {
    words = valid;
    for (; size >= 10; data += 10, size -= 10) {
      uint16_t index;
      uint64_t bits;
      std::memcpy(&index, data, 2);
      std::memcpy(&bits, data + 2, 8);
      if (index < words.size())
        words[index] ^= int64_t(bits);
      else
        words.push_back(int64_t(bits)); // past the end: one more word
    }
  } else {
    words.resize(size / 8);
    if (!words.empty()) std::memcpy(words.data(), data, words.size() * 8);
  }
  if (!(mode & 2)) rt::aot::seal(words);
  try {
    rt::aot::decode(aot_test::object_of(words, tables), 2);
  } catch (const jx::Error &) {
  }
  return 0;
}
