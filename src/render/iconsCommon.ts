/**
 * The icons the realm exposes as globals (KIT_ICON_NAMES in src/wire/mount.ts),
 * imported by name so this chunk stays small; any other lucide name loads
 * the whole set (iconsAll.tsx). A test keeps this list equal to the wire's.
 */
import {
  Activity, AlertCircle, AlertTriangle, Archive, ArrowDown, ArrowLeft, ArrowRight, ArrowUp, ArrowUpRight,
  BarChart3, Bell, Bookmark, Calendar, Camera, Check, CheckCircle, ChevronDown, ChevronLeft, ChevronRight,
  ChevronUp, Circle, Clock, Cloud, CloudRain, Code, Copy, CreditCard, Database, DollarSign, Download, Edit,
  Eye, EyeOff, File, FileText, Filter, Flag, Folder, Gift, Globe, Heart, HelpCircle, Home, Image, Info, Key,
  Layers, LayoutDashboard, Link, Loader2, Lock, LogIn, LogOut, Mail, MapPin, Menu, MessageSquare, Minus, Moon,
  MoreHorizontal, MoreVertical, Music, Package, Pause, Pencil, Phone, PieChart, Play, Plus, RefreshCw, Save,
  Search, Send, Settings, Share, ShoppingCart, Sparkles, Star, Sun, Tag, Target, Thermometer, ThumbsDown,
  ThumbsUp, Trash2, TrendingDown, TrendingUp, Trophy, Upload, User, Users, Wallet, Wind, X, XCircle, Zap,
} from "lucide-react";
import type { LucideIcon } from "lucide-react";

export const COMMON_ICONS: Readonly<Record<string, LucideIcon>> = Object.freeze({
  Activity, AlertCircle, AlertTriangle, Archive, ArrowDown, ArrowLeft, ArrowRight, ArrowUp, ArrowUpRight,
  BarChart3, Bell, Bookmark, Calendar, Camera, Check, CheckCircle, ChevronDown, ChevronLeft, ChevronRight,
  ChevronUp, Circle, Clock, Cloud, CloudRain, Code, Copy, CreditCard, Database, DollarSign, Download, Edit,
  Eye, EyeOff, File, FileText, Filter, Flag, Folder, Gift, Globe, Heart, HelpCircle, Home, Image, Info, Key,
  Layers, LayoutDashboard, Link, Loader2, Lock, LogIn, LogOut, Mail, MapPin, Menu, MessageSquare, Minus, Moon,
  MoreHorizontal, MoreVertical, Music, Package, Pause, Pencil, Phone, PieChart, Play, Plus, RefreshCw, Save,
  Search, Send, Settings, Share, ShoppingCart, Sparkles, Star, Sun, Tag, Target, Thermometer, ThumbsDown,
  ThumbsUp, Trash2, TrendingDown, TrendingUp, Trophy, Upload, User, Users, Wallet, Wind, X, XCircle, Zap,
});
