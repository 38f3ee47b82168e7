public import Observation
public import Synchronization

/// An Observation registrar: a box's own, or, before a box takes it, a thread's spare (see ``ObservationProbe``).
///
/// Held in a class so that a box's state keeps a fixed layout (the registrar's own layout is only known at run
/// time), and so that a spare can move from a thread to a box. When the holder ends, so does everything trackings
/// registered with its registrar.
@usableFromInline
final class RegistrarHolder: Sendable {
  /// Whether a tracking reached this registrar since its thread last cleared the flag; only the thread whose
  /// spare this is touches it (see ``ObservationProbe``).
  @usableFromInline let reached = Atomic<Bool>(false)
  @usableFromInline let registrar = ObservationRegistrar()

  @usableFromInline
  init() {}
}
