/// Tells whether the device can reach the network, and when that changes.
///
/// ```swift
/// let network = ManualOnlineStatus()
/// SharedRegistry.current.queries.onlineStatus = network
/// network.setOnline(false)  // fetches and mutations wait
/// network.setOnline(true)  // they go on, and the held queries refetch, as their refetchOnReconnect says
/// ```
///
/// The library gives two: ``ManualOnlineStatus``, which your program drives (from its own reachability checks, or
/// a test's steps), and, where the Network framework exists, `NetworkPathOnlineStatus`, which follows the system's
/// path monitor. Conform your own type to follow anything else.
///
/// A store follows one as its ``QueryStore/onlineStatus``, for both jobs: fetches and mutations wait while it says
/// offline (see ``NetworkMode``), and the held queries refetch each time it says the device is back.
public protocol OnlineStatusSource: Sendable {
  /// Whether the device is online now.
  var isOnline: Bool { get }
  /// The status now, then each change of it, for as long as the iteration runs; ends when the source goes away.
  func onlineStatuses() -> AsyncStream<Bool>
}

/// An online status of the library's own, whose changes a store's network gate hears synchronously, in the thread
/// that made them (see ``StatusBroadcast/listen(_:)``), rather than through an iteration that runs later.
protocol BroadcastOnlineStatus: OnlineStatusSource {
  /// The status and its listeners.
  var broadcast: StatusBroadcast { get }
}

/// Tells whether the app is active (in the foreground, its window focused), and when that changes.
///
/// ```swift
/// let focus = ManualFocus()
/// let subscription = SharedRegistry.current.queries.refetch(onFocus: focus)
/// focus.setFocused(false)
/// focus.setFocused(true)  // the held queries refetch, as their refetchOnFocus says
/// ```
///
/// The library gives two: ``ManualFocus``, which your program drives, and ``ApplicationFocus``, which follows the
/// application's activity notifications (`.platform` on Apple platforms). Conform your own type to follow anything
/// else.
public protocol FocusSource: Sendable {
  /// Whether the app is active now.
  var isFocused: Bool { get }
  /// The status now, then each change of it, for as long as the iteration runs; ends when the source goes away.
  func focusStatuses() -> AsyncStream<Bool>
}
