import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` as the request head arrives, so that clients
/// which wait for it before sending a body (curl does for large uploads) start at once instead of
/// after their own timeout. A request whose declared length is already past the upload limit gets no
/// `100`: the route answers 413 without the client sending its body.
///
/// Runs on the connection's event loop, in the channel pipeline after Hummingbird's HTTP/1 codec.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let maxBodyBytes: Int64

    init(maxBodyBytes: Int64) {
        self.maxBodyBytes = maxBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data),
           request.headerFields[.expect]?.lowercased() == "100-continue" {
            let declared = request.headerFields[.contentLength].flatMap { Int64($0) }
            if declared.map({ $0 <= maxBodyBytes }) ?? true {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
        }
        context.fireChannelRead(data)
    }
}
