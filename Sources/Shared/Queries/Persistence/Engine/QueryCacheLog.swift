/// What the stored bytes of a persisted query cache are, as far as its engine wrote or read them, and whether the
/// next write appends its changes to them or writes the whole cache again (a compaction).
///
/// A write appends while the stored bytes are a log this engine may extend and the log stays within twice the
/// whole cache (or ``minimumCompactionBytes``): under any churn the stored bytes stay below about twice what they
/// hold, and the whole writes, each in proportion to the cache, come once per cache's worth of appended changes.
struct QueryCacheLog: Equatable {
  /// Below this size a log is not compacted: a small cache appends a few thousand changes between whole writes.
  static let minimumCompactionBytes = 64 * 1024

  /// Whether the stored bytes are a whole log this engine may append to: not after a failed write (which may have
  /// left part of a frame), a cut end, a removal, or a restore that dropped entries.
  private(set) var isAppendable = false
  /// The size of the stored bytes.
  private(set) var bytes = 0
  /// The size of the whole cache when it was last written whole (or restored): what a compaction leaves.
  private(set) var wholeBytes = 0

  init() {}

  /// A log read at a restore: `bytes` long, `wholeBytes` of them live.
  init(restoredBytes bytes: Int, wholeBytes: Int) {
    isAppendable = true
    self.bytes = bytes
    self.wholeBytes = wholeBytes
  }

  /// Whether a write whose frame takes `frameBytes` appends it, rather than writing the whole cache.
  func appends(frameBytes: Int) -> Bool {
    isAppendable && bytes + frameBytes <= max(2 * wholeBytes, Self.minimumCompactionBytes)
  }

  /// The whole cache, `bytes` long, was written.
  mutating func wroteWhole(_ bytes: Int) {
    isAppendable = true
    self.bytes = bytes
    wholeBytes = bytes
  }

  /// A frame of `bytes` was appended.
  mutating func appended(_ bytes: Int) {
    self.bytes += bytes
  }

  /// The stored bytes were removed, or a write failed: the next write writes the whole cache.
  mutating func needsWholeWrite() {
    isAppendable = false
  }
}
