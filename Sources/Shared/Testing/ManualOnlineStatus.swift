/// An online status your program sets: from reachability checks of its own, a server's view of its dependencies, or
/// a test's steps.
///
/// ```swift
/// let network = ManualOnlineStatus()
/// SharedRegistry.current.queries.onlineStatus = network
/// network.setOnline(false)  // fetches and mutations wait
/// network.setOnline(true)  // they go on, and the held queries refetch, as their refetchOnReconnect says
/// ```
///
/// As a store's ``QueryStore/onlineStatus``, fetches and mutations wait while it says offline (see ``NetworkMode``),
/// and the held queries refetch when it says online again; the store hears each change before ``setOnline(_:)``
/// returns. So does a ``MutationQueue`` that follows it: its ``MutationQueue/isPaused`` already says so on the next
/// line.
public final class ManualOnlineStatus: OnlineStatusSource, BroadcastOnlineStatus {
  private let status: StatusBroadcast

  /// A status that starts as `isOnline`.
  ///
  /// - Parameter isOnline: Whether the device is online at first; `true` by default.
  public init(isOnline: Bool = true) {
    status = StatusBroadcast(isOnline)
  }

  /// Whether the device is online now.
  public var isOnline: Bool { status.value }

  /// Sets the status; iterations hear of it only if it changed.
  ///
  /// - Parameter isOnline: Whether the device is online now.
  public func setOnline(_ isOnline: Bool) {
    status.set(isOnline)
  }

  /// The status now, then each change of it.
  public func onlineStatuses() -> AsyncStream<Bool> {
    status.statuses()
  }

  var broadcast: StatusBroadcast { status }
}
