/**
 * The few icons the app's own first screen shows (the phone header, the
 * composer, Jump to latest), drawn from Lucide's shapes (ISC licence, Lucide
 * Icons and Contributors). Not lucide-react itself: its icon runtime is about
 * 2 KB gzipped on the first screen's budget (bench/README.md), for seven
 * static pictures. Generated UIs keep the whole lucide-react set (render/).
 */
import type { ReactNode } from "react";

function icon(shapes: ReactNode) {
  return function Icon({ className, size = 18 }: { className?: string; size?: number }) {
    return (
      <svg
        className={className}
        width={size}
        height={size}
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth={2}
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden="true"
        focusable="false"
      >
        {shapes}
      </svg>
    );
  };
}

export const MenuIcon = icon(<path d="M4 5h16M4 12h16M4 19h16" />);
export const MoreIcon = icon(<path d="m6 9 6 6 6-6" />);
export const DownloadIcon = icon(<path d="M12 15V3M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4M7 10l5 5 5-5" />);
export const ShareIcon = icon(
  <>
    <circle cx="18" cy="5" r="3" />
    <circle cx="6" cy="12" r="3" />
    <circle cx="18" cy="19" r="3" />
    <path d="M8.59 13.51 15.42 17.49M15.41 6.51 8.59 10.49" />
  </>,
);
export const BotIcon = icon(
  <>
    <path d="M12 8V4H8M2 14h2M20 14h2M15 13v2M9 13v2" />
    <rect width="16" height="12" x="4" y="8" rx="2" />
  </>,
);
export const SettingsIcon = icon(
  <>
    <path d="M9.671 4.136a2.34 2.34 0 0 1 4.659 0 2.34 2.34 0 0 0 3.319 1.915 2.34 2.34 0 0 1 2.33 4.033 2.34 2.34 0 0 0 0 3.831 2.34 2.34 0 0 1-2.33 4.033 2.34 2.34 0 0 0-3.319 1.915 2.34 2.34 0 0 1-4.659 0 2.34 2.34 0 0 0-3.32-1.915 2.34 2.34 0 0 1-2.33-4.033 2.34 2.34 0 0 0 0-3.831A2.34 2.34 0 0 1 6.35 6.051a2.34 2.34 0 0 0 3.319-1.915" />
    <circle cx="12" cy="12" r="3" />
  </>,
);
export const PaperclipIcon = icon(
  <path d="m16 6-8.414 8.586a2 2 0 0 0 2.829 2.829l8.414-8.586a4 4 0 1 0-5.657-5.657l-8.379 8.551a6 6 0 1 0 8.485 8.485l8.379-8.551" />,
);
export const ArrowDownIcon = icon(<path d="M12 5v14M19 12l-7 7-7-7" />);
