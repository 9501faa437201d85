interface MessageProps {
  message: string | null | undefined;
  id?: string;
}

/** Errors: announced at once by assistive technology. */
export function ErrorAlert({ message, id }: MessageProps) {
  if (!message) return null;
  return (
    <div className="alert alert-error" role="alert" id={id}>
      {message}
    </div>
  );
}

/** Confirmations and other polite updates. */
export function Notice({ message, id }: MessageProps) {
  if (!message) return null;
  return (
    <div className="alert alert-info" role="status" id={id}>
      {message}
    </div>
  );
}
