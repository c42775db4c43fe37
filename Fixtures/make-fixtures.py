#!/usr/bin/env python3
"""Builds every fixture in this folder from facts.json with the ffmpeg command.

Run from anywhere: python3 Fixtures/make-fixtures.py  (needs the `ffmpeg` package: apt-get install ffmpeg);
`--only hls` makes just the HLS stream in hls/, `--only frames` just the frame-index movies (frames-*),
`--only selection` just the media selection movies (selection.*), `--only many-tracks` just the movie
with a hundred tracks (hundred-tracks.mp4), `--only sharing` just the phone movie
with a place (phone-location.mov, from iphone.mov), `--only hls-renditions` just the HLS stream with
alternative audio in hls-renditions/, `--only timed-metadata` just the timed ID3 movie, its HLS stream and
the movie with a timed metadata track (timed-metadata.mov), `--only audio` just the audio fixtures in audio/
(sines in many codecs and containers, damaged files, ffmpeg's resampling references and audio/expected.json).
The outputs are committed, with ffprobe's report of each media file in ffprobe/; tests never run this script.
Every number and tag comes from facts.json, which the tests read too, so a fact is written down once.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact"]
VIDEO_ENCODERS = {
    "h264": ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "32", "-pix_fmt", "yuv420p", "-g", "25"],
    "vp9": ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "100k", "-pix_fmt", "yuv420p"],
    # VP8, as a browser's MediaRecorder writes it; one thread keeps the output independent of the core count.
    "vp8": ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "100k", "-pix_fmt", "yuv420p",
            "-threads", "1"],
    # One thread and no thread pool keep x265's output independent of the machine's core count; no
    # SEI naming x265's build, as on a phone. B-frames (x265's default) give the track a composition
    # offset, so the muxer writes an edit list that starts the media where its first frame shows.
    "hevc": ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "32", "-pix_fmt", "yuv420p", "-g", "25",
             "-x265-params", "log-level=error:pools=none:frame-threads=1:info=0", "-tag:v", "hvc1"],
    "h263": ["-c:v", "h263", "-q:v", "10", "-g", "25"],
}
AUDIO_ENCODERS = {
    "aac": ["aac", "-b:{i}", "64k"],
    "mp3": ["libmp3lame"],
    "pcm_s16le": ["pcm_s16le"],
    "flac": ["flac"],
    "opus": ["libopus", "-b:{i}", "48k"],
}


def ffmpeg(args, stdout_path=None):
    """Runs ffmpeg; with stdout_path, ffmpeg writes to a pipe (`pipe:1`) that goes into that file, so the
    muxer cannot seek back to fill in lengths and indexes, as a live recorder cannot."""
    cmd = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + args
    if stdout_path is None:
        print(" ".join(cmd))
        subprocess.run(cmd, check=True)
    else:
        print(" ".join(cmd), ">", stdout_path)
        with open(stdout_path, "wb") as out:
            subprocess.run(cmd, check=True, stdout=out)


def zero_avi_stream_lengths(path):
    """Sets every stream header's dwLength in an AVI to 0, as an interrupted recording leaves them.

    On a seekable file FFmpeg's AVI muxer writes 0 there and fills in the frame count in its trailer;
    on a pipe it writes a 1 GiB placeholder instead, which readers take for a real length (ffprobe
    reports 313.6 s for a one-second file). With 0 and no idx1 index, the duration is unknown."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    movi = data.find(b"movi")
    header = data[:movi]
    at = header.find(b"strh")
    while at >= 0:
        length = at + 8 + 32  # fccType, fccHandler, dwFlags, wPriority+wLanguage, dwInitialFrames, dwScale, dwRate, dwStart
        data[length:length + 4] = b"\0\0\0\0"
        at = header.find(b"strh", at + 4)
    with open(path, "wb") as f:
        f.write(data)


def make_cover(cover):
    ffmpeg(["-f", "lavfi", "-i", f"testsrc2=size={cover['width']}x{cover['height']}:rate=1",
            "-frames:v", "1", os.path.join(HERE, cover["file"])])


def chapters_file(fixture, tmp):
    lines = [";FFMETADATA1"]
    for key, value in fixture.get("tags", {}).items():
        lines.append(f"{key}={value}")
    for ch in fixture.get("chapters", []):
        lines += ["[CHAPTER]", "TIMEBASE=1/1000",
                  f"START={int(round(ch['start'] * 1000))}", f"END={int(round(ch['end'] * 1000))}",
                  f"title={ch['title']}"]
    path = os.path.join(tmp, "meta.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def srt_file(subtitle, tmp):
    def stamp(s):
        ms = int(round(s * 1000))
        return f"{ms // 3600000:02}:{ms // 60000 % 60:02}:{ms // 1000 % 60:02},{ms % 1000:03}"
    path = os.path.join(tmp, "subs.srt")
    with open(path, "w", encoding="utf-8") as f:
        for i, (start, end, text) in enumerate(subtitle["cues"], 1):
            f.write(f"{i}\n{stamp(start)} --> {stamp(end)}\n{text}\n\n")
    return path


def make_media(fx, cover, tmp):
    """Audio and/or video from lavfi sources, with tags, chapters, subtitles and cover art from facts."""
    d = fx["duration"]
    # A trimmed fixture is encoded longer, then stream-copied from trim_start (see below).
    trim = fx.get("trim_start")
    length = d + trim if trim else d
    inputs, maps, codec_args = [], [], []
    n = 0
    video = fx.get("video")
    if video:
        rate = f"{video['fps_num']}/{video['fps_den']}" if "fps_num" in video else video["fps"]
        source = f"testsrc2=size={video['width']}x{video['height']}:rate={rate}:duration={length}"
        if video["codec"] == "h263":
            # Baseline H.263 cannot signal a pixel aspect ratio (its standard sizes imply 12:11). An
            # unknown one keeps the muxer from writing a pasp box and a track header widened by it, as
            # in a phone's 3GP file; the decoder then reports the implied 12:11.
            source += ",setsar=0"
        inputs += ["-f", "lavfi", "-i", source]
        maps += ["-map", f"{n}:v"]
        codec_args += VIDEO_ENCODERS[video["codec"]]
        if "b_frames" in video:
            # After the preset, which leaves B-frames out (ultrafast).
            codec_args += ["-bf", str(video["b_frames"])]
        n += 1
    for i, audio in enumerate(fx.get("audio", [])):
        layout = "mono" if audio["channels"] == 1 else "stereo"
        if fx.get("vbr_without_xing"):
            # Silence for the first half, noise after: the bit rate of the first frames says little
            # about the rest, which is what makes a bit-rate estimate of the duration wrong.
            source = (f"anoisesrc=duration={d}:sample_rate={audio['sample_rate']}:seed=7,"
                      f"volume='if(lt(t,{d / 2}),0,1)':eval=frame")
        else:
            source = f"sine=frequency={440 * (i + 1)}:sample_rate={audio['sample_rate']}:duration={length}"
        inputs += ["-f", "lavfi", "-i", f"{source},aformat=channel_layouts={layout}"]
        maps += ["-map", f"{n}:a"]
        enc = AUDIO_ENCODERS[audio["codec"]]
        if audio["codec"] == "mp3" and not fx.get("vbr_without_xing"):
            enc = enc + ["-b:{i}", "64k"]
        codec_args += [f"-c:a:{i}", enc[0]] + [a.replace("{i}", f"a:{i}") for a in enc[1:]]
        codec_args += [f"-ar:a:{i}", str(audio["sample_rate"]), f"-ac:a:{i}", str(audio["channels"])]
        if "language" in audio:
            codec_args += [f"-metadata:s:a:{i}", f"language={audio['language']}"]
        if "title" in audio:
            codec_args += [f"-metadata:s:a:{i}", f"title={audio['title']}"]
        n += 1
    subtitle = fx.get("subtitle")
    if subtitle:
        inputs += ["-i", srt_file(subtitle, tmp)]
        maps += ["-map", f"{n}:s"]
        codec_args += ["-c:s", "srt", "-metadata:s:s:0", f"language={subtitle['language']}"]
        n += 1
    if fx.get("cover_art"):
        inputs += ["-i", os.path.join(HERE, cover["file"])]
        maps += ["-map", f"{n}:v"]
        vi = 1 if video else 0
        codec_args += [f"-c:v:{vi}", "png", f"-disposition:v:{vi}", "attached_pic"]
        n += 1
    meta = chapters_file(fx, tmp)
    inputs += ["-f", "ffmetadata", "-i", meta]
    codec_args += ["-map_metadata", str(n), "-map_chapters", str(n)]
    if fx.get("tags", {}).get("creation_time"):
        codec_args += ["-metadata", f"creation_time={fx['tags']['creation_time']}"]
    movflags = []
    if fx.get("faststart"):
        movflags.append("+faststart")
    if fx.get("fragmented"):
        movflags.append("+frag_keyframe+empty_moov+default_base_moof")
    if fx.get("partially_fragmented"):
        # Without empty_moov the moov holds the samples up to the first cut, and moof fragments follow.
        # The explicit edit lists keep the AAC priming out of the tracks' timing (without them FFmpeg
        # lengthens the moov's last video sample instead, and ffprobe's average rate drops to 29.6).
        movflags.append("+frag_keyframe")
        codec_args += ["-use_editlist", "1"]
    quicktime_keys = any(key.startswith("com.apple.quicktime.") for key in fx.get("tags", {}))
    if quicktime_keys:
        # QuickTime metadata (moov/meta with mdta keys), as an iPhone writes it.
        movflags.append("+use_metadata_tags")
    if movflags:
        codec_args += ["-movflags", "".join(movflags)]
    if fx.get("unknown_duration") and fx["container"] in ("webm", "matroska"):
        # FFmpeg writes the -t time as an early Duration; a live recording knows none.
        codec_args += ["-live", "1"]
    if fx.get("vbr_without_xing"):
        # Variable bit rate and no Xing/LAME header: FFmpeg can only estimate the duration from the
        # first frame's bit rate, so the exact duration needs a packet scan.
        codec_args += ["-q:a", "0", "-write_xing", "0", "-id3v2_version", "0"]
    out = os.path.join(HERE, fx["name"])
    rotation = fx.get("rotation")
    encoded = os.path.join(tmp, "encoded-" + fx["name"]) if rotation or trim else out
    # A recording of unknown length goes to a pipe, so the muxer cannot go back to write its length.
    live = fx.get("unknown_duration", False)
    ffmpeg(inputs + maps + codec_args + BITEXACT + ["-t", str(length), "-f", fx["container"], "pipe:1" if live else encoded],
           stdout_path=encoded if live else None)
    if live and fx["container"] == "avi":
        zero_avi_stream_lengths(encoded)
    if rotation or trim:
        remux = []
        if trim:
            # Seeking a stream copy starts at the keyframe before trim_start; the muxer writes an edit
            # list whose media time skips the frames between them, as an editor's trim does.
            remux += ["-ss", str(trim)]
        remux += ["-i", encoded, "-map", "0", "-c", "copy"]
        if rotation:
            remux += rotation_tag(rotation)
        if quicktime_keys:
            # The demuxer reports the brands as tags; they must not come back as metadata keys.
            remux += ["-metadata", "major_brand=", "-metadata", "minor_version=", "-metadata", "compatible_brands="]
        flags = (["+faststart"] if fx.get("faststart") else []) + (["+use_metadata_tags"] if quicktime_keys else [])
        remux += ["-movflags", "".join(flags)] if flags else []
        if trim:
            remux += ["-t", str(d)]
        ffmpeg(remux + BITEXACT + ["-f", fx["container"], out])


def rotation_tag(rotation):
    """The output options that give a stream copy's video track a display matrix turning it `rotation`
    degrees clockwise. FFmpeg 5.1's muxer turns the `rotate` stream tag into the matrix only on a stream
    copy, so an encoded file is remuxed with it. The tag counts counter-clockwise; facts count clockwise,
    as Apple's preferredTransform does: 90 gives the matrix (0, 1, -1, 0)."""
    return ["-metadata:s:v:0", f"rotate={(360 - rotation) % 360}"]


def make_truncated(fx, folder=HERE):
    with open(os.path.join(folder, fx["source"]), "rb") as f:
        data = f.read()
    with open(os.path.join(folder, fx["name"]), "wb") as f:
        f.write(data[: int(len(data) * fx["keep_fraction"])])


def hls_stream(hls, variant, folder, segment_name, extra=()):
    """Encodes one variant of the HLS stream into `folder` (emptied first): its segments and a VOD
    media playlist, index.m3u8."""
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        os.remove(os.path.join(folder, old))
    audio, d = hls["audio"], hls["duration"]
    ffmpeg(["-f", "lavfi", "-i", f"testsrc2=size={variant['width']}x{variant['height']}:rate={hls['fps']}:duration={d}",
            "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={audio['sample_rate']}:duration={d}",
            "-map", "0:v", "-map", "1:a"] + VIDEO_ENCODERS["h264"] + ["-threads", "1", "-g", str(hls["fps"]),
            "-c:a", "aac", "-b:a", "64k", "-ac", str(audio["channels"])] + BITEXACT +
           ["-f", "hls", "-hls_time", str(hls["segment_seconds"]), "-hls_playlist_type", "vod"] + list(extra) +
           ["-hls_segment_filename", os.path.join(folder, segment_name), os.path.join(folder, "index.m3u8")])


def make_hls(hls):
    """An HLS stream: per variant, MPEG-TS segments and a VOD media playlist; a master playlist that
    names the variants with their bandwidth, resolution and codecs; and the first variant again as
    one file whose segments are byte ranges of it (EXT-X-BYTERANGE)."""
    root = os.path.join(HERE, hls["directory"])
    master = ["#EXTM3U", "#EXT-X-VERSION:3"]
    for variant in hls["variants"]:
        hls_stream(hls, variant, os.path.join(root, variant["name"]), "segment%d.ts")
        master.append(f"#EXT-X-STREAM-INF:BANDWIDTH={variant['bandwidth']},RESOLUTION={variant['width']}x{variant['height']},"
                      f"CODECS=\"avc1.42c00d,mp4a.40.2\"")
        master.append(f"{variant['name']}/index.m3u8")
    with open(os.path.join(root, "master.m3u8"), "w", encoding="utf-8") as f:
        f.write("\n".join(master) + "\n")
    hls_stream(hls, hls["variants"][0], os.path.join(root, hls["single_file"]), "stream.ts", ["-hls_flags", "single_file"])


def make_selection(selection):
    """The media selection movies: a short video, an audio track per language and a subtitle track
    per entry, each with its language, title and disposition."""
    d = selection["duration"]
    with tempfile.TemporaryDirectory() as tmp:
        for fx in selection["files"]:
            inputs = ["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate=25:duration={d}"]
            maps = ["-map", "0:v"]
            args = VIDEO_ENCODERS["h264"] + ["-threads", "1"]
            for i, audio in enumerate(fx["audio"]):
                inputs += ["-f", "lavfi", "-i", f"sine=frequency={440 * (i + 1)}:sample_rate=48000:duration={d}"]
                maps += ["-map", f"{i + 1}:a"]
                args += [f"-c:a:{i}", "aac", f"-b:a:{i}", "32k", f"-ac:a:{i}", "1",
                         f"-metadata:s:a:{i}", f"language={audio['language']}", f"-disposition:a:{i}", audio["disposition"]]
                if "title" in audio:
                    args += [f"-metadata:s:a:{i}", f"title={audio['title']}"]
            for i, subtitle in enumerate(fx["subtitles"]):
                path = os.path.join(tmp, f"{fx['name']}-{i}.srt")
                os.replace(srt_file(subtitle, tmp), path)
                inputs += ["-i", path]
                maps += ["-map", f"{1 + len(fx['audio']) + i}:s"]
                args += [f"-c:s:{i}", fx["subtitle_codec"], f"-metadata:s:s:{i}", f"language={subtitle['language']}",
                         f"-disposition:s:{i}", subtitle["disposition"]]
                if "title" in subtitle:
                    args += [f"-metadata:s:s:{i}", f"title={subtitle['title']}"]
            ffmpeg(inputs + maps + args + BITEXACT + ["-t", str(d), "-f", fx["container"], os.path.join(HERE, fx["name"])])


def make_many_tracks(spec):
    """A movie with a hundred tracks: a short video and many short mono tones, every track enabled."""
    inputs = ["-f", "lavfi", "-i", f"testsrc=size=64x48:rate=10:duration={spec['duration']}"]
    maps = ["-map", "0:v"]
    for i in range(spec["audio_tracks"]):
        inputs += ["-f", "lavfi", "-i",
                   f"sine=frequency={200 + 10 * (i + 1)}:sample_rate={spec['sample_rate']}:duration={spec['audio_seconds']}"]
        maps += ["-map", f"{i + 1}:a"]
    args = VIDEO_ENCODERS["h264"] + ["-threads", "1", "-c:a", "aac", "-b:a", "8k", "-ac", "1", "-disposition:a", "default"]
    ffmpeg(inputs + maps + args + BITEXACT + [os.path.join(HERE, spec["name"])])


def make_hls_renditions(hls):
    """An HLS stream with alternative audio, subtitles and timed ID3: the video variant and each audio
    rendition as a media playlist of its own (ffmpeg's HLS muxer), timed ID3 tags added to the video
    segments, WebVTT subtitle renditions (written here), and a master playlist naming them."""
    root = os.path.join(HERE, hls["directory"])
    d = hls["duration"]
    def segments(folder, inputs, codec):
        path = os.path.join(root, folder)
        os.makedirs(path, exist_ok=True)
        for old in os.listdir(path):
            os.remove(os.path.join(path, old))
        ffmpeg(inputs + codec + BITEXACT + ["-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                                           "-hls_segment_filename", os.path.join(path, "segment%d.ts"), os.path.join(path, "index.m3u8")])
    segments("video", ["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate=25:duration={d}"],
             VIDEO_ENCODERS["h264"] + ["-threads", "1", "-g", "25", "-an"])
    master = ["#EXTM3U", "#EXT-X-VERSION:3"]
    for r in hls["renditions"]:
        segments(r["folder"], ["-f", "lavfi", "-i", f"sine=frequency={r['frequency']}:sample_rate=44100:duration={d}"],
                 ["-c:a", "aac", "-b:a", "32k", "-ac", "1", "-vn"])
        master.append(f'#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="{r["name"]}",LANGUAGE="{r["language"]}",'
                      f'DEFAULT={"YES" if r["default"] else "NO"},AUTOSELECT=YES,URI="{r["folder"]}/index.m3u8"')
    # Timed ID3 in the video rendition, each tag in the segment of its time.
    origin = add_timed_id3_to_segments(os.path.join(root, "video"), hls["id3"])
    # The subtitle renditions: WebVTT segments of a second, whose X-TIMESTAMP-MAP puts cue time 0 at the
    # video's first frame; a cue that spans a segment boundary goes into both.
    for sub in hls["subtitles"]:
        folder = os.path.join(root, sub["folder"])
        os.makedirs(folder, exist_ok=True)
        for old in os.listdir(folder):
            os.remove(os.path.join(folder, old))
        stamp = lambda t: f"00:00:{int(t):02d}.{round(t % 1 * 1000):03d}"
        playlist = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for i in range(int(d)):
            lines = ["WEBVTT", f"X-TIMESTAMP-MAP=MPEGTS:{origin},LOCAL:00:00:00.000", ""]
            for start, end, text in sub["cues"]:
                if start < i + 1 and end > i:
                    lines += [f"{stamp(start)} --> {stamp(end)}", text, ""]
            with open(os.path.join(folder, f"segment{i}.vtt"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            playlist += ["#EXTINF:1.000000,", f"segment{i}.vtt"]
        with open(os.path.join(folder, "index.m3u8"), "w", encoding="utf-8") as f:
            f.write("\n".join(playlist + ["#EXT-X-ENDLIST"]) + "\n")
        master.append(f'#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="{sub["name"]}",LANGUAGE="{sub["language"]}",'
                      f'DEFAULT={"YES" if sub["default"] else "NO"},AUTOSELECT=YES,FORCED={"YES" if sub["forced"] else "NO"},'
                      f'URI="{sub["folder"]}/index.m3u8"')
    master.append('#EXT-X-STREAM-INF:BANDWIDTH=120000,RESOLUTION=160x120,CODECS="avc1.42c00b,mp4a.40.2",AUDIO="audio",SUBTITLES="subs"')
    master.append("video/index.m3u8")
    with open(os.path.join(root, "master.m3u8"), "w", encoding="utf-8") as f:
        f.write("\n".join(master) + "\n")


def make_sharing(sharing):
    """The phone movie with a place: the source stream-copied, its tags kept, the listed QuickTime
    metadata tags added."""
    args = ["-i", os.path.join(HERE, sharing["source"]), "-map", "0", "-c", "copy", "-map_metadata", "0"]
    # The demuxer reports the brands as tags; they must not come back as metadata keys.
    args += ["-metadata", "major_brand=", "-metadata", "minor_version=", "-metadata", "compatible_brands="]
    for key, value in sharing["tags"].items():
        args += ["-metadata", f"{key}={value}"]
    ffmpeg(args + ["-movflags", "+use_metadata_tags+faststart"] + BITEXACT + ["-f", "mov", os.path.join(HERE, sharing["name"])])


def id3_tag(frames):
    """An ID3v2.4 tag of the given frames: text frames (TIT2, ...) in UTF-8, user text (TXXX) with its
    description, private data (PRIV) with its owner and hex bytes."""
    def syncsafe(n):
        return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
    body = b""
    for frame in frames:
        if frame[0] == "PRIV":
            data = frame[1].encode() + b"\0" + bytes.fromhex(frame[2])
        elif frame[0] == "TXXX":
            data = b"\x03" + frame[1].encode() + b"\0" + frame[2].encode()
        else:
            data = b"\x03" + frame[1].encode()
        body += frame[0].encode() + syncsafe(len(data)) + b"\0\0" + data
    return b"ID3\x04\x00\x00" + syncsafe(len(body)) + body


def crc32_mpeg(data):
    """The CRC of an MPEG-TS section (CRC-32/MPEG-2)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return crc


def ts_payload(packet):
    """Where a TS packet's payload starts (after its adaptation field), or None when it has none."""
    control = (packet[3] >> 4) & 3
    if control in (0, 2):
        return None
    return 4 + (1 + packet[4] if control == 3 else 0)


def ts_packet(pid, payload, counter):
    """One TS packet starting a PES or section with `payload` (at most 184 bytes), stuffed with an
    adaptation field."""
    stuffing = 184 - len(payload)
    assert stuffing >= 0, "a payload of at most 184 bytes"
    header = bytes([0x47, 0x40 | (pid >> 8), pid & 0xFF])
    counter &= 0x0F  # the continuity counter is four bits
    if stuffing == 0:
        return header + bytes([0x10 | counter]) + payload
    field = bytes([stuffing - 1]) + (b"\x00" + b"\xff" * (stuffing - 2) if stuffing > 1 else b"")
    return header + bytes([0x30 | counter]) + field + payload


def pes_pts(packet):
    """The PTS of the PES a TS packet starts, or None."""
    start = ts_payload(packet)
    if start is None or not packet[1] & 0x40 or packet[start:start + 3] != b"\0\0\1" or not packet[start + 7] & 0x80:
        return None
    b = packet[start + 9:start + 14]
    return ((b[0] >> 1) & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1


def add_timed_id3(path, cues, base=None, pid=0x102):
    """Adds a timed ID3 stream to an MPEG-TS file as Apple's HLS timed metadata specification lays it
    out: the PMT gains a metadata pointer descriptor and a stream of type 0x15 with a metadata
    descriptor ('ID3 '), and each cue is one PES packet (stream id 0xBD) holding its ID3 tag, with
    its time as PTS (counted from `base`, the PTS of the movie's first video frame; this file's when
    none is given), placed before the first video packet showing after it. Returns the file's first
    video PTS."""
    data = open(path, "rb").read()
    packets = [data[i:i + 188] for i in range(0, len(data), 188)]
    pid_of = lambda p: ((p[1] & 0x1F) << 8) | p[2]
    pat = next(p for p in packets if pid_of(p) == 0)
    at = ts_payload(pat) + 1 + pat[ts_payload(pat)]
    pmt_pid = ((pat[at + 10] & 0x1F) << 8) | pat[at + 11]
    ID3 = b"ID3 "
    pointer = bytes([0x25, 15]) + b"\xff\xff" + ID3 + b"\xff" + ID3 + bytes([0, 0x1F, 0, 1])
    descriptor = bytes([0x26, 13]) + b"\xff\xff" + ID3 + b"\xff" + ID3 + bytes([0, 0x0F])
    video_pid = None
    out = []
    for packet in packets:
        if pid_of(packet) == pmt_pid and packet[1] & 0x40:
            start = ts_payload(packet) + 1 + packet[ts_payload(packet)]
            length = ((packet[start + 1] & 0x0F) << 8) | packet[start + 2]
            section = packet[start:start + 3 + length - 4]
            info_length = ((section[10] & 0x0F) << 8) | section[11]
            streams = section[12 + info_length:]
            i = 0
            while i + 5 <= len(streams):
                if streams[i] == 0x1B:
                    video_pid = ((streams[i + 1] & 0x1F) << 8) | streams[i + 2]
                i += 5 + (((streams[i + 3] & 0x0F) << 8) | streams[i + 4])
            info = section[12:12 + info_length] + pointer
            streams += bytes([0x15, 0xE0 | (pid >> 8), pid & 0xFF, 0xF0, len(descriptor)]) + descriptor
            body = section[3:10] + bytes([0xF0 | (len(info) >> 8), len(info) & 0xFF]) + info + streams
            new = bytes([section[0], 0xB0 | ((len(body) + 4) >> 8), (len(body) + 4) & 0xFF]) + body
            new += crc32_mpeg(new).to_bytes(4, "big")
            packet = packet[:start] + new
            assert len(packet) <= 188, "the rewritten PMT must fit its packet"
            packet += b"\xff" * (188 - len(packet))
        out.append(packet)
    first = next(pes_pts(p) for p in out if pid_of(p) == video_pid and pes_pts(p) is not None)
    base = first if base is None else base
    for counter, cue in reversed(list(enumerate(cues))):
        pts = base + round(cue["time"] * 90_000)
        tag = id3_tag(cue["frames"])
        header = bytes([0x84, 0x80, 5, 0x21 | ((pts >> 29) & 0x0E), (pts >> 22) & 0xFF, 0x01 | ((pts >> 14) & 0xFE),
                        (pts >> 7) & 0xFF, 0x01 | ((pts << 1) & 0xFE)])
        pes = b"\0\0\1\xbd" + (len(header) + len(tag)).to_bytes(2, "big") + header + tag
        assert len(pes) <= 184, "a cue's tag must fit one packet"
        where = next((i for i, p in enumerate(out) if pid_of(p) == video_pid and (pes_pts(p) or -1) > pts), len(out))
        out.insert(where, ts_packet(pid, pes, counter))
    with open(path, "wb") as f:
        f.write(b"".join(out))
    return first


def add_timed_id3_to_segments(folder, cues):
    """Adds timed ID3 to the MPEG-TS segments segment0.ts, segment1.ts, ... of `folder` (as ffmpeg's HLS
    muxer names them), each cue in the segment whose time holds it, its time counted from the first
    segment's first video frame. Returns that frame's PTS."""
    segments = sorted((f for f in os.listdir(folder) if f.endswith(".ts")), key=lambda f: int(f[7:-3]))
    starts = [first_video_pts(os.path.join(folder, f)) for f in segments]
    for i, segment in enumerate(segments):
        end = starts[i + 1] if i + 1 < len(segments) else None
        mine = [c for c in cues if starts[0] + c["time"] * 90_000 >= starts[i] and (end is None or starts[0] + c["time"] * 90_000 < end)]
        if mine:
            add_timed_id3(os.path.join(folder, segment), mine, starts[0])
    return starts[0]


def first_video_pts(path):
    """The PTS of the first video frame of an MPEG-TS file (stream type 0x1B at PID 0x100, as ffmpeg
    writes it)."""
    data = open(path, "rb").read()
    return next(pes_pts(data[i:i + 188]) for i in range(0, len(data), 188)
                if ((data[i + 1] & 0x1F) << 8 | data[i + 2]) == 0x100 and pes_pts(data[i:i + 188]) is not None)


def make_timed_metadata(tm):
    """The timed ID3 movie (an MPEG-TS file with video, sound and an ID3 stream) and the same movie
    as an HLS stream of one-second segments, each segment carrying the cues of its own time. The
    segments are cut before the ID3 stream is added: ffmpeg 5.1 drops the first five bytes of each
    timed ID3 packet it reads, so it cannot copy the stream."""
    d = tm["duration"]
    path = os.path.join(HERE, tm["name"])
    ffmpeg(["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate=25:duration={d}",
            "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=44100:duration={d}"] +
           VIDEO_ENCODERS["h264"] + ["-threads", "1", "-c:a", "aac", "-b:a", "32k", "-ac", "1"] + BITEXACT +
           ["-f", "mpegts", path])
    folder = os.path.join(HERE, tm["hls_directory"])
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        os.remove(os.path.join(folder, old))
    ffmpeg(["-i", path, "-map", "0", "-c", "copy"] + BITEXACT +
           ["-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
            "-hls_segment_filename", os.path.join(folder, "segment%d.ts"), os.path.join(folder, "index.m3u8")])
    add_timed_id3(path, tm["cues"])
    add_timed_id3_to_segments(folder, tm["cues"])

CONTAINER_ATOMS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"dinf", b"edts", b"udta"}


def parse_atoms(data):
    """QuickTime atoms as [type, bytes or child atoms], containers (moov, trak, ...) opened."""
    atoms, at = [], 0
    while at + 8 <= len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        kind, body = data[at + 4:at + 8], data[at + 8:at + size]
        atoms.append([kind, parse_atoms(body) if kind in CONTAINER_ATOMS else body])
        at += size
    return atoms


def atom(kind, body):
    """An atom's bytes: its size, its type, then the body (bytes or child atoms)."""
    if isinstance(body, list):
        body = b"".join(atom(k, b) for k, b in body)
    return (8 + len(body)).to_bytes(4, "big") + kind + body


def child(atoms, kind):
    return next(a for a in atoms if a[0] == kind)


def make_boxed_metadata(bm):
    """The movie with a timed metadata track: ffmpeg writes video and a text track whose cues (one a
    sample, end to end) are as long as the metadata samples will be; the text track becomes a
    metadata track (handler 'meta', a null media header, a 'mebx' sample description with the key
    table) and each sample's text is overwritten with its value atoms. ffmpeg puts the movie atom
    after the media data, so rebuilding it moves no sample."""
    def value(v, data_type):
        assert data_type in (1, 23), "the script packs UTF-8 (1) and big-endian Float32 (23) values only"
        return v.encode() if data_type == 1 else struct.pack(">f", v)

    def stamp(t):
        ms = round(t * 1000)
        return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"

    samples = [b"".join(atom((i + 1).to_bytes(4, "big"), value(v, key[2])) for i, (v, key) in enumerate(zip(values, bm["keys"])))
               for _, _, values in bm["samples"]]
    path = os.path.join(HERE, bm["name"])
    with tempfile.TemporaryDirectory() as tmp:
        srt = os.path.join(tmp, "cues.srt")
        with open(srt, "w", encoding="utf-8") as f:
            for i, ((start, end, _), sample) in enumerate(zip(bm["samples"], samples)):
                f.write(f"{i + 1}\n{stamp(start)} --> {stamp(end)}\n{'x' * (len(sample) - 2)}\n\n")
        ffmpeg(["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate=25:duration={bm['duration']}", "-i", srt, "-map", "0", "-map", "1"] +
               VIDEO_ENCODERS["h264"] + ["-threads", "1", "-c:s", "mov_text"] + BITEXACT + ["-f", "mov", path])
    data = bytearray(open(path, "rb").read())
    top = parse_atoms(bytes(data))
    moov = child(top, b"moov")
    trak = next(t for k, t in moov[1] if k == b"trak" and child(child(t, b"mdia")[1], b"hdlr")[1][8:12] == b"text")
    mdia = child(trak, b"mdia")[1]
    hdlr = child(mdia, b"hdlr")
    hdlr[1] = hdlr[1][:8] + b"meta" + hdlr[1][12:]
    minf = child(mdia, b"minf")[1]
    minf[:] = [[b"nmhd", bytes(4)] if k == b"gmhd" else [k, b] for k, b in minf]
    stbl = child(minf, b"stbl")[1]
    keys = b"".join(atom((i + 1).to_bytes(4, "big"), [[b"keyd", ns.encode() + name.encode()],
                                                     [b"dtyp", bytes(4) + data_type.to_bytes(4, "big")]])
                    for i, (ns, name, data_type) in enumerate(bm["keys"]))
    entry = atom(b"mebx", bytes(6) + (1).to_bytes(2, "big") + atom(b"keys", keys))
    stsd = child(stbl, b"stsd")
    stsd[1] = bytes(4) + (1).to_bytes(4, "big") + entry
    # The muxer ends a text track with an empty sample (two bytes, no duration), which a metadata
    # track cannot hold: it leaves the tables (the muxer writes a chunk a sample here).
    sizes, times, chunks = child(stbl, b"stsz"), child(stbl, b"stts"), child(stbl, b"stco")
    n = int.from_bytes(sizes[1][8:12], "big")
    if n == len(samples) + 1 and int.from_bytes(sizes[1][-4:], "big") == 2 and times[1][-8:] == (1).to_bytes(4, "big") + bytes(4):
        sizes[1] = sizes[1][:8] + (n - 1).to_bytes(4, "big") + sizes[1][12:-4]
        times[1] = times[1][:4] + (int.from_bytes(times[1][4:8], "big") - 1).to_bytes(4, "big") + times[1][8:-8]
        chunks[1] = chunks[1][:4] + (n - 1).to_bytes(4, "big") + chunks[1][8:-4]
    # Where each sample is: its chunk's offset plus the sizes of the samples before it in the chunk.
    sizes = child(stbl, b"stsz")[1]
    constant, count = int.from_bytes(sizes[4:8], "big"), int.from_bytes(sizes[8:12], "big")
    size_of = [constant or int.from_bytes(sizes[12 + 4 * i:16 + 4 * i], "big") for i in range(count)]
    assert size_of == [len(s) for s in samples], "one text sample a cue, as long as its metadata sample"
    offsets_atom = child(stbl, b"stco")[1]
    offsets = [int.from_bytes(offsets_atom[8 + 4 * i:12 + 4 * i], "big") for i in range(int.from_bytes(offsets_atom[4:8], "big"))]
    runs_atom = child(stbl, b"stsc")[1]
    runs = [(int.from_bytes(runs_atom[8 + 12 * i:12 + 12 * i], "big"), int.from_bytes(runs_atom[12 + 12 * i:16 + 12 * i], "big"))
            for i in range(int.from_bytes(runs_atom[4:8], "big"))]
    sample = 0
    for chunk, offset in enumerate(offsets, 1):
        per_chunk = [n for first, n in runs if first <= chunk][-1]
        for _ in range(per_chunk):
            data[offset:offset + size_of[sample]] = samples[sample]
            offset += size_of[sample]
            sample += 1
    start = sum(8 + (len(atom(k, b)) - 8) for k, b in top[:top.index(moov)])
    with open(path, "wb") as f:
        f.write(bytes(data[:start]) + atom(b"moov", moov[1]))


FRAME_ENCODERS = {
    # One thread each: the outputs do not depend on the machine's core count.
    "h264": ["-c:v", "libx264", "-preset", "veryfast", "-crf", "26", "-threads", "1"],
    "hevc": ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "26", "-tag:v", "hvc1",
             "-x265-params", "log-level=error:pools=none:frame-threads=1:info=0"],
    "vp9": ["-c:v", "libvpx-vp9", "-deadline", "good", "-cpu-used", "8", "-crf", "30", "-b:v", "0", "-threads", "1"],
    "av1": ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "30", "-b:v", "0", "-threads", "1"],
    "mpeg4": ["-c:v", "mpeg4", "-q:v", "3", "-tag:v", "XVID"],
}


def frame_pattern(fx):
    """The lavfi graph of a frame-index movie (see facts.json's frames comment)."""
    w, h = fx["width"], fx["height"]
    grey = f"if(lt(X,{3 * w // 4}),mod(N,16)*16+8,trunc(N/16)*16+8)"
    top, left = f"lt(Y,{h // 2})", f"lt(X,{w // 2})"
    red = f"if({top},if({left},255,0),if({left},0,{grey}))"
    green = f"if({top},if({left},0,255),if({left},0,{grey}))"
    blue = f"if({top},0,if({left},255,{grey}))"
    sar = fx.get("sample_aspect_ratio", "1:1").replace(":", "/")
    shows_at = f",setpts='({fx['shows_at']})/TB'" if "shows_at" in fx else ""
    return (f"color=black:size={w}x{h}:rate={fx.get('rate', fx['fps'])}:duration={fx['duration']},format=gbrp,"
            f"geq=r='{red}':g='{green}':b='{blue}',setsar={sar}{shows_at}")


def make_frames(frames):
    """The frame-index movies: the pattern encoded as each entry says, rotated by a remux where asked."""
    with tempfile.TemporaryDirectory() as tmp:
        for fx in frames["fixtures"]:
            out = os.path.join(HERE, fx["name"])
            inputs = ["-f", "lavfi", "-i", frame_pattern(fx)]
            maps = ["-map", "0:v"]
            if "audio_seconds" in fx:
                inputs += ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=44100:duration={fx['audio_seconds']}"]
                maps += ["-map", "1:a", "-c:a", "aac", "-b:a", "64k"]
            codec = FRAME_ENCODERS[fx["codec"]] + ["-pix_fmt", fx["pix_fmt"], "-g", str(fx["gop"]),
                                                   "-keyint_min", str(fx["gop"]), "-bf", str(fx["b_frames"])]
            if fx["codec"] == "h264":
                codec += ["-sc_threshold", "0"]
            if "shows_at" in fx:
                # Each picture at its own time: no frames duplicated to a constant rate.
                codec += ["-fps_mode", "passthrough"]
            if "display_aspect_ratio" in fx:
                codec += ["-aspect", fx["display_aspect_ratio"]]
            if fx["container"] == "mpegts":
                # No mux delay: the stream starts at 0, as the other movies do (FFmpeg's default is 1.4 s).
                codec += ["-muxdelay", "0", "-muxpreload", "0"]
            rotation = fx.get("rotation")
            encoded = os.path.join(tmp, fx["name"]) if rotation else out
            if fx.get("live"):
                # To a pipe, as a recorder writes: the muxer cannot go back to add cues or a duration.
                ffmpeg(inputs + maps + codec + BITEXACT + ["-live", "1", "-f", fx["container"], "pipe:1"], stdout_path=encoded)
                continue
            ffmpeg(inputs + maps + codec + BITEXACT + ["-f", fx["container"], encoded])
            if rotation:
                ffmpeg(["-i", encoded, "-map", "0", "-c", "copy"] + rotation_tag(rotation) + BITEXACT + ["-f", fx["container"], out])
    # FFmpeg's own decode of chosen pictures, for tests that compare pixels. No rotation: the
    # pictures as coded.
    os.makedirs(os.path.join(HERE, "reference"), exist_ok=True)
    for ref in frames["references"]:
        ffmpeg(["-noautorotate", "-i", os.path.join(HERE, ref["source"]), "-vf", f"select=eq(n\\,{ref['frame']})",
                "-frames:v", "1", "-pix_fmt", "rgb24"] + BITEXACT + [os.path.join(HERE, ref["file"])])


# ffmpeg's encoder for each codec name facts.json's audio files give (ffprobe's names); others are their own.
AUDIO_FIXTURE_ENCODERS = {"mp3": "libmp3lame", "vorbis": "libvorbis", "opus": "libopus"}


def audio_signal(signal, sample_rate=None):
    """The lavfi source of a facts.json audio signal: aevalsrc with one sine a channel, exactly
    sample_rate * duration frames (atrim cuts aevalsrc's last block of 1024 to length)."""
    rate = sample_rate or signal["sample_rate"]
    frames = round(rate * signal["duration"])
    sines = "|".join(f"{a}*sin(2*PI*{f}*t)" for a, f in zip(signal["amplitudes"], signal["frequencies"]))
    return f"aevalsrc='{sines}':sample_rate={rate}:channel_layout={signal['layout']},atrim=end_sample={frames}"


def audio_expectation(path):
    """What ffprobe and ffmpeg say of an audio file's first sound track: codec, rate, channels, sample
    format, packets (ffprobe -count_packets) and decoded_frames (the frames `ffmpeg -i F -f f32le -` writes)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "a:0", "-show_streams",
                          "-of", "json", path], check=True, capture_output=True, text=True).stdout
    stream = json.loads(out)["streams"][0]
    pcm = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "quiet", "-i", path, "-map", "0:a:0", "-f", "f32le", "-"],
                         check=True, capture_output=True).stdout
    channels = stream["channels"]
    assert len(pcm) % (4 * channels) == 0, f"{path}: whole frames of Float32"
    bits = stream.get("bits_per_raw_sample") or stream.get("bits_per_sample") or 0
    return {
        "name": os.path.basename(path),
        "codec": stream["codec_name"],
        "sample_rate": int(stream["sample_rate"]),
        "channels": channels,
        "channel_layout": stream.get("channel_layout"),
        "sample_fmt": stream["sample_fmt"],
        "bits_per_sample": int(bits),
        "packets": int(stream["nb_read_packets"]),
        "decoded_frames": len(pcm) // (4 * channels),
        "duration": float(stream["duration"]) if "duration" in stream else None,
    }


def make_audio(audio):
    """The audio fixtures (facts.json's audio): each file one signal in its codec and container, the
    damaged files, ffmpeg's resampling references and expected.json, ffprobe's and ffmpeg's view of
    every file that holds sound."""
    folder = os.path.join(HERE, audio["directory"])
    os.makedirs(folder, exist_ok=True)
    signals = {signal["name"]: signal for signal in audio["signals"]}
    for fx in audio["files"]:
        signal = signals[fx["signal"]]
        inputs, maps, codec = [], [], []
        video = fx.get("video")
        if video:
            inputs += ["-f", "lavfi", "-i", f"testsrc2=size={video['width']}x{video['height']}:rate={video['fps']}"
                                            f":duration={signal['duration']}"]
            maps += ["-map", "0:v"]
            # One thread: the output does not depend on the machine's core count.
            codec += VIDEO_ENCODERS[video["codec"]] + ["-threads", "1"]
        maps += ["-map", f"{1 if video else 0}:a"]
        inputs += ["-f", "lavfi", "-i", audio_signal(signal, fx.get("sample_rate"))]
        codec += ["-c:a", AUDIO_FIXTURE_ENCODERS.get(fx["codec"], fx["codec"])]
        if "bit_rate" in fx:
            codec += ["-b:a", str(fx["bit_rate"])]
        if "sample_fmt" in fx:
            codec += ["-sample_fmt", fx["sample_fmt"]]
        ffmpeg(inputs + maps + codec + BITEXACT + ["-f", fx["container"], os.path.join(folder, fx["name"])])
    for fx in audio["damaged"]:
        if "source" in fx:
            make_truncated(fx, folder)
        else:
            with open(os.path.join(folder, fx["name"]), "w", encoding="utf-8") as out:
                out.write(fx["text"])
    for ref in audio["references"]:
        if ref["command"] == "aresample":
            resample = ["-af", f"aresample={ref['sample_rate']}"]
        else:
            resample = ["-ar", str(ref["sample_rate"]), "-ac", str(ref["channels"])]
        ffmpeg(["-i", os.path.join(folder, ref["source"])] + resample + ["-f", "f32le", os.path.join(folder, ref["name"])])
    sounding = [fx["name"] for fx in audio["files"]] + [fx["name"] for fx in audio["damaged"] if "source" in fx]
    expected = {
        "comment": "Written by make-fixtures.py --only audio: per audio file, ffprobe's view of its first sound "
                   "track (codec, sample_rate, channels, channel_layout, sample_fmt, bits_per_sample: "
                   "bits_per_raw_sample where ffprobe gives one, duration in seconds) and its count of packets "
                   "(-count_packets), and decoded_frames, the frames that ffmpeg -i FILE -f f32le - writes.",
        "files": [audio_expectation(os.path.join(folder, name)) for name in sounding],
    }
    with open(os.path.join(folder, audio["expected"]), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


def make_segmented_audio(spec):
    """Sound that changes from packet to packet, longer than a segment of the segmented decoder's tests:
    a 180 Hz and a 1250 Hz sine with pink noise of its own on each side, swung in loudness 4 (left) and
    3 (right) times a second, in each file's codec at its rate."""
    folder = os.path.join(HERE, spec["directory"])
    seconds = spec["duration"]
    for fx in spec["files"]:
        rate = fx["sample_rate"]
        graph = (f"[0][2]amix=inputs=2:normalize=0,volume='0.6+0.4*sin(2*PI*4*t)':eval=frame[l];"
                 f"[1][3]amix=inputs=2:normalize=0,volume='0.6+0.4*sin(2*PI*3*t)':eval=frame[r];"
                 f"[l][r]join=inputs=2:channel_layout=stereo,atrim=end_sample={rate * seconds}[a]")
        inputs = []
        for source in (f"sine=f=180:r={rate}:d={seconds}", f"sine=f=1250:r={rate}:d={seconds}",
                       f"anoisesrc=c=pink:r={rate}:a=0.3:seed=1:d={seconds}", f"anoisesrc=c=pink:r={rate}:a=0.3:seed=2:d={seconds}"):
            inputs += ["-f", "lavfi", "-i", source]
        ffmpeg(inputs + ["-filter_complex", graph, "-map", "[a]"] + fx["codec"] + BITEXACT
               + [os.path.join(folder, fx["name"])])


def main():
    with open(os.path.join(HERE, "facts.json"), encoding="utf-8") as f:
        facts = json.load(f)
    # The parts that can be made alone (`--only NAME`), each from its own entry of facts.json.
    parts = {
        "hls": lambda: make_hls(facts["hls"]),
        "hls-renditions": lambda: make_hls_renditions(facts["hls_renditions"]),
        "frames": lambda: make_frames(facts["frames"]),
        "selection": lambda: make_selection(facts["selection"]),
        "many-tracks": lambda: make_many_tracks(facts["many_tracks"]),
        "sharing": lambda: make_sharing(facts["sharing"]),
        "timed-metadata": lambda: (make_timed_metadata(facts["timed_metadata"]), make_boxed_metadata(facts["boxed_metadata"])),
        "audio": lambda: make_audio(facts["audio"]),
        "segmented-audio": lambda: make_segmented_audio(facts["segmented_audio"]),
    }
    if len(sys.argv) == 3 and sys.argv[1] == "--only":
        if sys.argv[2] not in parts:
            sys.exit(f"--only takes one of {', '.join(sorted(parts))}")
        parts[sys.argv[2]]()
        return
    make_cover(facts["cover"])
    make_hls(facts["hls"])
    make_hls_renditions(facts["hls_renditions"])
    make_frames(facts["frames"])
    make_selection(facts["selection"])
    make_many_tracks(facts["many_tracks"])
    with tempfile.TemporaryDirectory() as tmp:
        for fx in facts["fixtures"] + facts["timing"]:
            recipe = fx["recipe"]
            if recipe in ("av", "audio"):
                make_media(fx, facts["cover"], tmp)
            elif recipe == "truncate":
                make_truncated(fx)
            elif recipe == "text":
                with open(os.path.join(HERE, fx["name"]), "w", encoding="utf-8") as out:
                    out.write(fx["text"])
            else:
                sys.exit(f"unknown recipe {recipe} for {fx['name']}")
    make_sharing(facts["sharing"])
    make_timed_metadata(facts["timed_metadata"])
    make_boxed_metadata(facts["boxed_metadata"])
    make_audio(facts["audio"])
    make_segmented_audio(facts["segmented_audio"])
    # What ffprobe says of each media fixture, for tests that compare Avocet's values with ffprobe's.
    probes = os.path.join(HERE, "ffprobe")
    os.makedirs(probes, exist_ok=True)
    for fx in facts["fixtures"]:
        if "bad" in fx:
            continue
        out = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json",
                              os.path.join(HERE, fx["name"])], check=True, capture_output=True, text=True).stdout
        report = json.loads(out)
        report["format"].pop("filename", None)
        with open(os.path.join(probes, fx["name"] + ".json"), "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)
            f.write("\n")
    print("fixtures written to", HERE)


if __name__ == "__main__":
    main()
