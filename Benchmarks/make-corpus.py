#!/usr/bin/env python3
"""Makes a benchmark corpus of files shaped like real ones, with the ffmpeg command, in Benchmarks/out/corpus.

    python3 Benchmarks/make-corpus.py          (needs `apt-get install ffmpeg`; about a minute on 2 cores)

The test fixtures are tiny (160x120, one second), so decoding their first frames costs FFmpeg next to
nothing; real uploads are HD movies and whole songs, where `avformat_find_stream_info` decodes 1080p
frames. These are: a 1080p H.264 + AAC MP4 with B-frames, an iPhone-style 1080p HEVC MOV with an edit
list, a 1080p H.264 Matroska with two audio languages, a 720p VP9 + Opus WebM, an AAC M4A song, an
MP3 song (with a Xing header, as LAME writes it), a FLAC song and an Ogg Opus song. Not committed:
Benchmarks/out/ is ignored, and the script is the record. Files already there are kept.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out", "corpus")

VIDEO = "testsrc2=size=1920x1080:rate=30"


def music(seconds):
    return f"sine=frequency=440:sample_rate=44100:duration={seconds},aformat=channel_layouts=stereo"

FILES = {
    "movie.mp4": ["-f", "lavfi", "-i", f"{VIDEO}:duration=10", "-f", "lavfi", "-i", music(10),
                  "-c:v", "libx264", "-preset", "veryfast", "-bf", "3", "-c:a", "aac", "-b:a", "128k",
                  "-metadata", "title=Benchmark Movie", "-movflags", "+faststart"],
    "iphone.mov": None,  # made from a longer HEVC encode by a stream copy with -ss (an edit list)
    "film.mkv": ["-f", "lavfi", "-i", f"{VIDEO}:duration=10", "-f", "lavfi", "-i", music(10),
                 "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=10",
                 "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac",
                 "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata", "title=Film"],
    "clip.webm": ["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=5", "-f", "lavfi", "-i",
                  "sine=frequency=440:sample_rate=48000:duration=5", "-c:v", "libvpx-vp9", "-deadline", "realtime",
                  "-cpu-used", "8", "-b:v", "1M", "-c:a", "libopus"],
    "song.m4a": ["-f", "lavfi", "-i", music(180), "-c:a", "aac", "-b:a", "192k",
                 "-metadata", "title=Song", "-metadata", "artist=Avocet"],
    "song.mp3": ["-f", "lavfi", "-i", music(180), "-c:a", "libmp3lame", "-b:a", "192k",
                 "-metadata", "title=Song", "-metadata", "artist=Avocet"],
    "song.flac": ["-f", "lavfi", "-i", music(60), "-c:a", "flac",
                  "-metadata", "title=Song", "-metadata", "artist=Avocet"],
    "song.opus": ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=120", "-c:a", "libopus",
                  "-b:a", "96k", "-metadata", "title=Song"],
}


def ffmpeg(args):
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + args, check=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, args in FILES.items():
        path = os.path.join(OUT, name)
        if os.path.exists(path):
            continue
        print("making", path, flush=True)
        if name == "iphone.mov":
            long = os.path.join(OUT, "iphone-source.mov")
            ffmpeg(["-f", "lavfi", "-i", f"{VIDEO}:duration=6", "-f", "lavfi", "-i", music(6),
                    "-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-c:a", "aac", long])
            ffmpeg(["-ss", "1", "-i", long, "-c", "copy", "-metadata:s:v:0", "rotate=270", path])
            os.remove(long)
        else:
            ffmpeg(args + [path])
    print("corpus in", OUT)


if __name__ == "__main__":
    main()
