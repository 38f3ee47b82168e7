/// A thread's spare registrar, and where the thread keeps it: what a read went through, so that a tracked read
/// takes exactly that spare (``ObservationProbe/takeSpare(_:)``).
@usableFromInline
struct SpareRead {
  /// Where ``entry`` says a spare kept under ``ObservationProbe/spareKey`` is.
  @usableFromInline static var keptUnderKey: Int { -1 }

  /// The spare, retained by where it is kept.
  @usableFromInline let spare: Unmanaged<RegistrarHolder>
  /// The thread's entry of ``ObservationProbe/threadSlots`` that keeps the spare, or ``keptUnderKey``.
  @usableFromInline let entry: Int

  @inlinable
  init(spare: Unmanaged<RegistrarHolder>, entry: Int) {
    self.spare = spare
    self.entry = entry
  }
}
