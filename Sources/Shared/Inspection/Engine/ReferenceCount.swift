/// Counts the strong references to values an inspection reads, less the inspection's own.
enum ReferenceCount {
  /// The references each of `objects` has, as this function sees them.
  ///
  /// Not inlined: its own references are the same for every call, so ``inspectionsOwn`` measures them once.
  @inline(never)
  static func counts(of objects: [AnyObject]) -> [Int] {
    objects.map { Int(_getRetainCount($0)) }
  }

  /// The references an object held only by an array given to ``counts(of:)`` has.
  static let inspectionsOwn: Int = {
    final class Probe {}
    return counts(of: [Probe()])[0]
  }()
}
