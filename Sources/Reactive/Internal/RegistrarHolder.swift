public import Observation

/// An Observation registrar: a box's own, or, before a box takes it, a thread's spare (see ``ObservationProbe``).
///
/// Held in a class so that a box's state keeps a fixed layout (the registrar's own layout is only known at run
/// time), and so that a spare can move from a thread to a box. When the holder ends, so does everything trackings
/// registered with its registrar.
@usableFromInline
final class RegistrarHolder: Sendable {
  @usableFromInline let registrar = ObservationRegistrar()

  @usableFromInline
  init() {}
}
