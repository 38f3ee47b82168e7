public import Synchronization

/// A box's own registrar, published once Observation has tracked the box, so that the box's reads and changes
/// reach it without taking the lock or retaining it.
///
/// It is published once, under the box's lock, by the tracked read that gave the box its registrar (or when the
/// box is made, if tracking cannot be detected; see ``ObservationProbe``), and never changes afterwards. The box's
/// ``ObservationState`` holds the registrar for as long as the box lives, so a reference read here stays valid for
/// as long as the caller holds the box.
@usableFromInline
struct PublishedRegistrar: ~Copyable, Sendable {
  @usableFromInline let stored: Atomic<Unmanaged<RegistrarHolder>?>

  /// A registrar published from the start, or none yet.
  @inlinable
  init(_ registrar: RegistrarHolder?) {
    stored = Atomic(registrar.map { Unmanaged.passUnretained($0) })
  }

  /// Whether the registrar is published: enough to choose a path, not to use it (see ``holder``).
  @inlinable
  var isPublished: Bool {
    stored.load(ordering: .relaxed) != nil
  }

  /// The registrar, if published; an acquiring load, so that the registrar is seen whole.
  @inlinable
  var holder: Unmanaged<RegistrarHolder>? {
    stored.load(ordering: .acquiring)
  }

  /// Publishes `registrar`, which the box's state holds for as long as the box lives. Publishing the one already
  /// published again changes nothing.
  @inlinable
  func publish(_ registrar: RegistrarHolder) {
    stored.store(Unmanaged.passUnretained(registrar), ordering: .releasing)
  }
}
