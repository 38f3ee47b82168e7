#if canImport(Network)
  import Dispatch
  import Network

  /// Whether the device is online, followed through the system's network path monitor (`NWPathMonitor`), on the
  /// platforms that have the Network framework.
  ///
  /// ```swift
  /// SharedRegistry.current.queries.onlineStatus = NetworkPathOnlineStatus()
  /// ```
  ///
  /// The device counts as online while the path is satisfied, and until the monitor's first report. As a store's
  /// `onlineStatus`, fetches and mutations wait while the device is offline (see `NetworkMode`), and the held queries
  /// refetch when it is back.
  public final class NetworkPathOnlineStatus: OnlineStatusSource, BroadcastOnlineStatus {
    private let status = StatusBroadcast(true)
    private let monitor = NWPathMonitor()

    /// Starts following the path monitor; it stops when this source is freed.
    public init() {
      let status = self.status
      monitor.pathUpdateHandler = { path in status.set(path.status == .satisfied) }
      monitor.start(queue: DispatchQueue(label: "SharedState.NetworkPathOnlineStatus"))
    }

    deinit {
      monitor.cancel()
    }

    /// Whether the device is online now.
    public var isOnline: Bool { status.value }

    /// The status now, then each change of it.
    public func onlineStatuses() -> AsyncStream<Bool> {
      status.statuses()
    }

    var broadcast: StatusBroadcast { status }
  }
#endif
