import TestSupport

/// A reference whose lifetime a test can watch through a weak reference.
final class Marker: Sendable {}
