/// Whether the app is active, as your program sets it: from a window system of its own, a server's notion of
/// being in service, or a test's steps.
///
/// ```swift
/// let focus = ManualFocus()
/// let subscription = SharedRegistry.current.queries.refetch(onFocus: focus)
/// focus.setFocused(false)
/// focus.setFocused(true)  // the held queries refetch, as their refetchOnFocus says
/// ```
public final class ManualFocus: FocusSource {
  private let status: StatusBroadcast

  /// A status that starts as `isFocused`.
  ///
  /// - Parameter isFocused: Whether the app is active at first; `true` by default.
  public init(isFocused: Bool = true) {
    status = StatusBroadcast(isFocused)
  }

  /// Whether the app is active now.
  public var isFocused: Bool { status.value }

  /// Sets the status; iterations hear of it only if it changed.
  ///
  /// - Parameter isFocused: Whether the app is active now.
  public func setFocused(_ isFocused: Bool) {
    status.set(isFocused)
  }

  /// The status now, then each change of it.
  public func focusStatuses() -> AsyncStream<Bool> {
    status.statuses()
  }
}
