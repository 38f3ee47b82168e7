/// A key whose store can be written synchronously, on the calling thread, without awaiting anything: what the
/// flush at exit needs, since it runs on the exiting thread (see ``ExitFlush``). ``FileStorageKey`` is one.
///
/// A key that is not one (a store of the program's own, whose save is `async`) is written by
/// ``SharedRegistry/flush()``, which a program awaits before it ends, but not by the flush at exit.
protocol SavesSynchronously<Value>: SharedKey {
  /// Writes `value`, change number `sequence` of the value `context` belongs to, before returning. A change no newer
  /// than one the store already holds from the same value is skipped, so the exit's write and a save under way can
  /// land in either order.
  ///
  /// It must not wait for anything but the store itself: no task, no actor, no lock that code of the program may
  /// hold.
  func saveNow(_ value: Value, sequence: UInt64, context: SharedKeyContext<Value>) throws
}
