"""The live streams' machinery: Server-Sent Events frames and the one poller per watched match or tournament per API process."""
